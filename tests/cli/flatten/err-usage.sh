# Misuse: a message and the usage line, exit 2, nothing written.
cd "$T"
run ckpt-flatten
expect_usage_error ckpt-flatten 'no INPUT given'
run ckpt-flatten "$FIX/model.h5" "$FIX/order.h5"
expect_usage_error ckpt-flatten "one INPUT only"
run ckpt-flatten --dtype float33 "$FIX/model.h5"
expect_usage_error ckpt-flatten "--dtype: .*float33"
run ckpt-flatten --compress gzip -o x "$FIX/order.h5"
expect_usage_error ckpt-flatten '--compress goes with --bundle'
run ckpt-flatten --bundle --compress rar -o x "$FIX/order.h5"
expect_usage_error ckpt-flatten "unknown compression 'rar'"
run ckpt-flatten --size -o x "$FIX/order.h5"
expect_usage_error ckpt-flatten '--size prints a number'
run ckpt-flatten --bundle --manifest m.tsv -o x "$FIX/order.h5"
expect_usage_error ckpt-flatten 'a bundle holds its manifest'
run ckpt-flatten --manifest - "$FIX/order.h5"
expect_usage_error ckpt-flatten 'cannot both go to standard output'
run ckpt-flatten --nonsense "$FIX/order.h5"
expect_usage_error ckpt-flatten "unknown option '--nonsense'"
run ckpt-flatten -o
expect_usage_error ckpt-flatten "-o.*(value|argument)"
expect_no_file x m.tsv
