# -v shows storage: layout, chunk shape and filters.
run ckpt-read -v "$FIX/model.h5"
expect_status 0
expect_out 'kernel:0 .*chunked\[2,3\] shuffle,gzip$'
expect_out 'bias:0 .*contiguous$'
