# CKPT_DEBUG=1 adds HDF5's own error stack; without it, one line only.
head -c 3000 "$FIX/model.h5" >"$T/cut.h5"
CKPT_DEBUG=1 ckpt-read "$T/cut.h5" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "exit status"
grep -q 'HDF5-DIAG' "$T/err" || fail "no HDF5 stack: $(cat "$T/err")"
grep -q '^ckpt-read: .*cut.h5: damaged or truncated' "$T/err" || fail "no message"
run ckpt-read "$T/cut.h5"
expect_error ckpt-read "truncated file"
