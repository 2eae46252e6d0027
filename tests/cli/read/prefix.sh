# --strip-prefix then --add-prefix map the names shown; globs see the result.
run ckpt-read --names --strip-prefix dense/ --add-prefix w/ --only 'w/dense/*' "$FIX/model.h5"
expect_status 0
printf '%s\n' w/dense/bias:0 w/dense/kernel:0 >"$T/want"
cmp -s "$T/out" "$T/want" || fail "got: $(cat "$T/out")"
