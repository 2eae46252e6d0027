# Misuse: a message and the usage line, exit 2.
run ckpt-read --frobnicate "$FIX/model.h5"
expect_usage_error ckpt-read "unknown option '--frobnicate'"
run ckpt-read -Z "$FIX/model.h5"
expect_usage_error ckpt-read "unknown option '-Z'"
run ckpt-read
expect_usage_error ckpt-read "no FILE given"
run ckpt-read --only
expect_usage_error ckpt-read "needs a value"
run ckpt-read --names --stats "$FIX/model.h5"
expect_usage_error ckpt-read "goes alone"
