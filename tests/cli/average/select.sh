# --only/--exclude: the other variables are copied from the first input.
cd "$T"
ckpt-train -q --steps 0 --seed 1 -o a.h5
ckpt-train -q --steps 0 --seed 2 -o b.h5
run ckpt-average --exclude w -o x.h5 a.h5 b.h5
expect_status 0
[ "$(ckpt-read -q --values --only w x.h5)" = "$(ckpt-read -q --values --only w a.h5)" ] || fail "w not copied"
run ckpt-average --only w -o y.h5 a.h5 b.h5
[ "$(ckpt-read -q --values --only w y.h5)" != "$(ckpt-read -q --values --only w a.h5)" ] || fail "w not averaged"
# variables left out need not match: here w has another shape
ckpt-train -q --steps 0 --features 3 -o c.h5
run ckpt-average -o ac.h5 a.h5 c.h5
expect_error ckpt-average "variable 'w' has shape \[1,3\]"
run ckpt-average --exclude w -o ac.h5 a.h5 c.h5
expect_status 0
[ "$(ckpt-read -q --values --only w ac.h5)" = "$(ckpt-read -q --values --only w a.h5)" ] || fail "w not from a.h5"
