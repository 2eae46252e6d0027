# Misuse: a message and the usage line (or one line for a bad
# combination found later), exit 2, nothing written.
cd "$T"
ckpt-flatten -o ok.bin "$FIX/order.h5"
run ckpt-unflatten --template "$FIX/order.h5" ok.bin
expect_usage_error ckpt-unflatten 'no output given'
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 ok.bin ok.bin
expect_usage_error ckpt-unflatten 'one FLAT input only'
run ckpt-unflatten --dtype float33 -o out.h5 ok.bin
expect_usage_error ckpt-unflatten '--dtype: .*float33'
run ckpt-unflatten --only zeta --manifest m.tsv -o out.h5 ok.bin
expect_usage_error ckpt-unflatten '--only and --exclude go with --template'
run ckpt-unflatten --template - -o out.h5
expect_usage_error ckpt-unflatten 'cannot both be standard input'
run ckpt-unflatten --bogus -o out.h5 ok.bin
expect_usage_error ckpt-unflatten "unknown option '--bogus'"
run ckpt-unflatten -o out.h5 ok.bin
expect_error ckpt-unflatten 'ok.bin: not a bundle; a raw flat vector needs --template or --manifest'
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 missing.bin
expect_error ckpt-unflatten 'missing.bin: No such file or directory'
run ckpt-unflatten --template missing.h5 -o out.h5 ok.bin
expect_error ckpt-unflatten 'missing.h5: '
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 .
expect_error ckpt-unflatten '\.: is a directory'
run ckpt-unflatten --template "$FIX/dtypes.h5" -o out.h5 ok.bin
expect_error ckpt-unflatten 'dtypes.h5: the variables are of several types; say which FLAT holds with --dtype'
run ckpt-unflatten --template "$FIX/order.h5" --only 'no*' -o out.h5 ok.bin
expect_error ckpt-unflatten 'order.h5: no numeric variable selected to set'
expect_no_file out.h5
