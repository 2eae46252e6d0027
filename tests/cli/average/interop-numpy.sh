# Averages of random checkpoints of every dtype against exact rational
# arithmetic (Python's fractions): floats (float16, bfloat16 as Keras 3
# stores it, float32, float64, and inputs of mixed float types) are the
# exact mean, or the exact combination with the weights as doubles, rounded
# once to nearest even into the stored type; integers exactly, rounded half
# to even.  (float64 means used to be about 20% one ulp off: two roundings.)
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(11)
def bf16(x):
    u = np.asarray(x, "f4").view("u4").astype("u8")
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype("u2")
for k in range(3):
    with h5py.File(f"r{k}.h5", "w") as f:
        for t in ["f2", "f4", "f8"]:
            f[t] = (r.standard_normal((40, 7)) * 10.0 ** r.integers(-3, 3)).astype(t)
        f["f2big"] = r.uniform(-65504, 65504, 50).astype("f2")
        f["f2tiny"] = (r.standard_normal(50) * 1e-6).astype("f2")
        f["f4wide"] = (r.standard_normal(200) * 2.0 ** r.integers(-150, 124, 200)).astype("f4")
        f["f8wide"] = r.standard_normal(200) * 2.0 ** r.integers(-1074, 1020, 200)
        f.create_dataset("bf16", data=bf16(r.standard_normal(60)).view("V2")).attrs["dtype"] = "bfloat16"
        # one variable, a different float type in each input
        f["mixed"] = r.standard_normal(80).astype(["f4", "f2", "f8"][k])
        for t in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
            info = np.iinfo(t)
            f[t] = r.integers(info.min, info.max, 64, dtype=t, endpoint=True)
        f["bool"] = r.random(30) > 0.5
        f["scalar"] = np.float32(r.standard_normal())
PY
run ckpt-average -o avg.h5 r0.h5 r1.h5 r2.h5
expect_status 0
run ckpt-average --exclude '[iub]*' -w 0.5,0.25,0.25 -o w.h5 r0.h5 r1.h5 r2.h5
expect_status 0
run ckpt-average --exclude '[iub]*' --no-normalize -w 0.3,-0.7,1.1 -o n.h5 r0.h5 r1.h5 r2.h5
expect_status 0
"$PY" - <<'PY' || fail "not the exact result, rounded once"
import h5py, math, numpy as np
from fractions import Fraction as F
ins = [h5py.File(f"r{k}.h5", "r") for k in range(3)]
# mantissa bits, smallest normal exponent, largest exponent
FORMATS = {"f2": (11, -14, 15), "bf16": (8, -126, 127), "f4": (24, -126, 127),
           "f8": (53, -1022, 1023)}
def kind(d):
    if d.dtype == np.dtype("V2"):
        return "bf16"
    return {2: "f2", 4: "f4", 8: "f8"}[d.dtype.itemsize]
def floats(d):
    if kind(d) == "bf16":
        u = np.frombuffer(d[()].tobytes(), "<u2").astype("u4") << 16
        return [float(x) for x in u.view("f4")]
    return [float(x) for x in np.ravel(d[()])]
def values(d):
    return [F(x) for x in floats(d)]
def round_to(q, fmt):
    p, emin, emax = FORMATS[fmt]
    if q == 0:
        return 0.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if F(2) ** e > a:
        e -= 1
    quantum = F(2) ** (max(e, emin) - p + 1)
    m = a / quantum
    fl = m.numerator // m.denominator
    rest = m - fl
    if rest > F(1, 2) or (rest == F(1, 2) and fl % 2):
        fl += 1
    v = fl * quantum
    if v >= F(2) ** (emax + 1):
        return math.copysign(math.inf, q)
    return math.copysign(float(v), q)
def check(out_name, weights):
    out = h5py.File(out_name, "r")
    for name in ins[0]:
        if name[0] in "iub" and weights:
            continue
        d = out[name]
        first = ins[0][name]
        assert d.dtype == first.dtype, (out_name, name, d.dtype)
        if name[0] in "iu":
            s = [sum(int(x) for x in v) for v in zip(*[np.ravel(f[name][()]).tolist() for f in ins])]
            q = [(x // 3) + (1 if (x % 3) * 2 > 3 else 0) for x in s]
            assert np.ravel(d[()]).tolist() == q, (out_name, name)
            continue
        if name == "bool":
            continue
        got, fmt = floats(d), kind(d)
        cols = list(zip(*[values(f[name]) for f in ins]))
        for i, col in enumerate(cols):
            exact = sum(w * x for w, x in zip(weights, col)) if weights else sum(col) / 3
            want = round_to(exact, fmt)
            assert got[i] == want, (out_name, name, i, got[i], want)
check("avg.h5", None)
check("w.h5", [F(0.5), F(0.25), F(0.25)])
check("n.h5", [F(0.3), F(-0.7), F(1.1)])
PY
