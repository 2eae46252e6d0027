# A worker's prefixed names against plain ones: --strip-prefix maps both.
cd "$T"
ckpt-train -q --steps 5 --prefix worker_7 -o w.h5
ckpt-train -q --steps 5 -o plain.h5
run ckpt-diff w.h5 plain.h5
expect_status 1
expect_out '^only in w.h5: worker_7/w$'
run ckpt-diff --strip-prefix worker_7/ w.h5 plain.h5
expect_status 0
# the name options map both sides: stripping and adding the same prefix
# puts the plain names under it as well
run ckpt-diff --strip-prefix worker_7/ --add-prefix worker_7/ plain.h5 w.h5
expect_status 0
cat plain.h5 | ckpt-diff --strip-prefix worker_7/ w.h5 - >"$T/out" 2>"$T/err" || fail "stdin: $(cat "$T/err")"
