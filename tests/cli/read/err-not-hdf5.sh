printf 'hello, this is text\n' >"$T/text.h5"
run ckpt-read "$T/text.h5"
expect_error ckpt-read "text.h5: not an HDF5 or safetensors file"
: >"$T/empty.h5"
run ckpt-read "$T/empty.h5"
expect_error ckpt-read "empty.h5: empty file"
run ckpt-read - </dev/null
expect_error ckpt-read "stdin.*empty"
