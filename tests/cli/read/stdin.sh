# '-' reads an HDF5 file from standard input, from a file or a pipe.
run ckpt-read --names - <"$FIX/model.h5"
expect_status 0
expect_out '^dense/dense/kernel:0$'
cat "$FIX/model.h5" | ckpt-read --stats - >"$T/out" 2>"$T/err" || fail "pipe: $(cat "$T/err")"
expect_out '^dense/dense/kernel:0 '
