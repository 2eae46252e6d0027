# ckpt-diff --stats on values at the ends of float64's range (near 1e308,
# near 1e-300, subnormal): rms diff, cosine and relative L2 within 1e-13 of
# the exact answers (fractions), never nan, inf or 0; a file against
# itself has cosine 1.  (Sums of squares used to overflow or vanish.)
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
rng = np.random.default_rng(7)
huge = rng.uniform(-1, 1, 500) * 1.7e308
tiny = rng.uniform(-1, 1, 500) * 1e-300
sub = np.array([5e-324, 1e-320, -3e-321, 2e-322])
with h5py.File("a.h5", "w") as f:
    f["huge"] = huge; f["tiny"] = tiny; f["sub"] = sub
with h5py.File("b.h5", "w") as f:
    f["huge"] = huge * 0.999; f["tiny"] = tiny + 1e-303
    f["sub"] = np.array([1e-323, 1e-320, -2e-321, 2e-322])
PY
run ckpt-diff --stats a.h5 a.h5
expect_status 0
expect_out "^huge: equal: cosine 1, rel l2 0$"
expect_out "^sub: equal: cosine 1, rel l2 0$"
run ckpt-diff --stats --json a.h5 b.h5
expect_status 1
"$PY" - "$T/out" <<'PY' || fail "statistics wrong"
import json, math, sys, h5py
from fractions import Fraction as F
doc = json.load(open(sys.argv[1]))
fa, fb = h5py.File("a.h5"), h5py.File("b.h5")
def close(got, want):               # plain double sums of 500 terms
    got = float(got)
    return math.isfinite(got) and abs(got - want) <= 1e-13 * abs(want)
def fsqrt(q):                      # the square root of a fraction, as a double
    j = (220 - (q.numerator.bit_length() - q.denominator.bit_length())) // 2
    return math.ldexp(float(math.isqrt(int(q * F(4) ** j))), -j)
for v in doc["variables"]:
    a = [F(float(t)) for t in fa[v["name"]][:]]
    b = [F(float(t)) for t in fb[v["name"]][:]]
    ssd = sum((x - y) ** 2 for x, y in zip(a, b))
    ssa, ssb = sum(x * x for x in a), sum(y * y for y in b)
    dot = sum(x * y for x, y in zip(a, b))
    rms = fsqrt(ssd / len(a))
    rel = fsqrt(ssd / ssb)
    cos = fsqrt(dot * dot / (ssa * ssb)) * (1 if dot >= 0 else -1)
    for key, want in (("rms_diff", rms), ("rel_l2", rel), ("cosine", cos)):
        assert close(v[key], want), (v["name"], key, v[key], want)
PY
