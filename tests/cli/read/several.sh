# Several files: one after another, each with a header.
run ckpt-read "$FIX/model.h5" "$FIX/order.h5"
expect_status 0
expect_out "^==> .*model.h5 <==$"
expect_out "^==> .*order.h5 <==$"
expect_out '^5 variables, 5 parameters, 20 bytes$'
