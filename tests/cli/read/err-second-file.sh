# An error in the second file stops with exit 2 after the first is listed.
run ckpt-read --names "$FIX/model.h5" "$T/nope.h5"
expect_error ckpt-read "nope.h5"
expect_out '^dense/dense/kernel:0$'
