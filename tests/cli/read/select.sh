# --only and --exclude are repeatable globs; '*' also matches '/'.
run ckpt-read --names --only 'dense/*' --exclude '*bias*' "$FIX/model.h5"
expect_status 0
[ "$(cat "$T/out")" = "dense/dense/kernel:0" ] || fail "got: $(cat "$T/out")"
run ckpt-read --names --only nothing-matches "$FIX/model.h5"
expect_status 0
[ ! -s "$T/out" ] || fail "expected no names"
