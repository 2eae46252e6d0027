# --gradients then --apply is one step; averaging gradients by hand is
# --sync grads.  (The average of gradient files is ckpt-average's job; a
# single worker's mean is the gradient itself.)
ckpt-train -q --steps 0 -o "$T/w0.h5" || fail "start"
run ckpt-train -q --init "$T/w0.h5" --gradients -o "$T/g.h5"
expect_status 0
run ckpt-read --names "$T/g.h5"
expect_out '^w$'
ckpt-train -q --init "$T/w0.h5" --apply "$T/g.h5" -o "$T/applied.h5" || fail "apply"
ckpt-train -q --init "$T/w0.h5" --steps 1 -o "$T/stepped.h5" || fail "step"
ckpt-read -q --values "$T/applied.h5" >"$T/a"
ckpt-read -q --values "$T/stepped.h5" >"$T/b"
cmp -s "$T/a" "$T/b" || fail "apply differs from a step: $(cat "$T/a") / $(cat "$T/b")"
# the gradient at w0 by hand: 2 * mean((w x + b - y) x)
need_h5py
"$PY" - "$T/g.h5" <<'PY' || fail "gradient differs from numpy"
import sys, h5py, numpy as np
np.random.seed(0); w = np.float32(np.random.uniform(-1, 1))
np.random.seed(0); x = np.random.rand(100).astype(np.float32); y = x * np.float32(0.1) + np.float32(0.3)
r = w * x - y
g = h5py.File(sys.argv[1], "r")
assert abs(g["w"][0] - 2 * np.mean(r * x)) < 1e-6, (g["w"][0], 2 * np.mean(r * x))
assert abs(g["b"][0] - 2 * np.mean(r)) < 1e-6
PY
