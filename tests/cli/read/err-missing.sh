run ckpt-read "$T/nope.h5"
expect_error ckpt-read "nope.h5: No such file or directory"
