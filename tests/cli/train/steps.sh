# Step by step: 100 steps, then 101 more from the file, is bit for bit the
# 201-iteration run; --steps 0 writes the starting point.
ckpt-train -q -o "$T/full.h5" || fail "full run"
ckpt-train -q --steps 100 -o "$T/half.h5" || fail "first half"
run ckpt-train -q --init "$T/half.h5" --steps 101 -o "$T/rest.h5"
expect_status 0
ckpt-read -q --values "$T/full.h5" >"$T/a"
ckpt-read -q --values "$T/rest.h5" >"$T/b"
cmp -s "$T/a" "$T/b" || fail "differs: $(cat "$T/a") / $(cat "$T/b")"
h5dump -a iterations "$T/rest.h5" 2>/dev/null | grep -q '(0): 201' || \
	{ command -v h5dump >/dev/null && fail "iterations not carried over"; }
run ckpt-train --steps 0 -o "$T/start.h5"
expect_status 0
ckpt-read -q --values "$T/start.h5" | grep -qx '0.09762701' || fail "start w: $(ckpt-read -q --values "$T/start.h5")"
