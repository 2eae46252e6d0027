# Statistics of values at the ends of float64's range (near 1e308, 1e300,
# 1e-300, subnormal) are finite and right: std and the norm within a few
# ulps of the exact answer (fractions), not nan, inf or 0.
need_h5py
"$PY" - <<'PY' || fail "cannot make the input"
import h5py, numpy as np
rng = np.random.default_rng(5)
with h5py.File("r.h5", "w") as f:
    f["huge"] = rng.uniform(-1, 1, 1000) * 1.7e308
    f["big"] = np.array([1e300, -1e300, 3e300, -2e300])
    f["tiny"] = np.array([1e-300, -1e-300, 3e-300, 2.5e-300])
    f["sub"] = np.array([5e-324, 1e-320, -3e-321])
PY
run ckpt-read --stats --json r.h5
expect_status 0
"$PY" - "$T/out" <<'PY' || fail "statistics wrong"
import json, math, sys, h5py
from fractions import Fraction as F
doc = json.load(open(sys.argv[1]))
f = h5py.File("r.h5")
def close(a, b, ulps=8):
    return a == b or abs(a - b) <= ulps * math.ulp(max(abs(a), abs(b)))
for v in doc["files"][0]["variables"]:
    x = [F(float(t)) for t in f[v["name"]][:]]
    n = len(x)
    mean = sum(x) / n
    var = sum((t - mean) ** 2 for t in x) / n
    st = v["stats"]
    assert close(float(st["mean"]), float(mean)), (v["name"], st["mean"], float(mean))
    # the exact std: an integer square root of var scaled by 4^j
    j = (220 - (var.numerator.bit_length() - var.denominator.bit_length())) // 2
    want = math.ldexp(float(math.isqrt(int(var * F(4) ** j))), -j)
    got = float(st["std"])
    assert math.isfinite(got) and close(got, want, 64), (v["name"], got, want)
PY
