# Rounded once, checked against Python's fractions: the mean of 64-bit
# integers stored as float16/32/64 (it used to go through double: two
# roundings, 2^60+2^36+1 became 2^60); a float64 mean whose sum overflows
# double (1e308 and 1e308) is 1e308, not inf; 2^53 and 2^53+1 differ by 1.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
rng = np.random.default_rng(3)
vals = [rng.integers(-2**63, 2**63 - 1, 500, dtype="i8") for _ in range(3)]
vals[0][0] = vals[1][0] = vals[2][0] = 2**60 + 2**36 + 1
for k, v in enumerate(vals):
    with h5py.File("i%d.h5" % k, "w") as f:
        f["w"] = v
with h5py.File("big.h5", "w") as f:
    f["w"] = np.array([1e308, -1e308, 1.5e308], "f8")
with h5py.File("a53.h5", "w") as f:
    f["w"] = np.array([2**53], "i8")
with h5py.File("b53.h5", "w") as f:
    f["w"] = np.array([2**53 + 1], "i8")
PY
for t in f16 f32 f64; do
	run ckpt-average -q --dtype $t -o m$t.h5 i0.h5 i1.h5 i2.h5
	expect_status 0
done
"$PY" - <<'PY' || fail "not the exact mean rounded once"
import h5py, numpy as np
from fractions import Fraction as F
ins = [h5py.File("i%d.h5" % k)["w"][:] for k in range(3)]

def nearest(x, t):
    """x rounded to nearest, ties to even, in numpy float type t."""
    c = t(float(x))
    best = None
    for cand in (np.nextafter(c, t(-np.inf)), c, np.nextafter(c, t(np.inf))):
        if not np.isfinite(cand):
            continue
        key = (abs(F(float(cand)) - x), int(np.frombuffer(cand.tobytes(), "u%d" % cand.itemsize)[0]) & 1)
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1]

for name, t in (("f16", np.float16), ("f32", np.float32), ("f64", np.float64)):
    got = h5py.File("m%s.h5" % name)["w"][:]
    for i in range(len(got)):
        exact = F(int(ins[0][i]) + int(ins[1][i]) + int(ins[2][i]), 3)
        want = nearest(exact, t) if name != "f16" or abs(exact) < 65520 else t(np.inf) * np.sign(float(exact))
        assert got[i] == want or (np.isinf(want) and np.isinf(got[i])), (name, i, got[i], want, exact)
assert int(h5py.File("mf32.h5")["w"][0]) == 2**60 + 2**37
PY
run ckpt-average -o big2.h5 big.h5 big.h5
expect_status 0
expect_quiet_stderr
"$PY" -c '
import h5py
assert list(h5py.File("big2.h5")["w"][:]) == [1e308, -1e308, 1.5e308]' || fail "overflowed"
run ckpt-diff a53.h5 b53.h5
expect_status 1
expect_out 'max abs diff 1 '
