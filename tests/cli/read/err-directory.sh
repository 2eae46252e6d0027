run ckpt-read "$T"
expect_error ckpt-read "is a directory"
