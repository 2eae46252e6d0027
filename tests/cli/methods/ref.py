"""The merge methods of ckpt-average(1), written again from its man page
in exact rational arithmetic (fractions) over numpy arrays, and compared
bit for bit with what ckpt-average writes.

    ref.py make DTYPE              inputs base.h5 m0.h5 m1.h5 m2.h5
    ref.py check OUT.h5 ARGS...    OUT against the reference of ARGS
                                   (ckpt-average's method options)
    ref.py suite DTYPE             both, for every method and some options
"""
import math, struct, subprocess, sys
from fractions import Fraction as F

import h5py
import numpy as np

# ---- inputs -------------------------------------------------------------

def bf16(x):
    u = np.atleast_1d(np.asarray(x, "f4")).view("u4").astype("u8")
    one, sh = np.uint64(1), np.uint64(16)
    return ((u + np.uint64(0x7fff) + ((u >> sh) & one)) >> sh).astype("u2").reshape(np.shape(x))

def store(f, name, a, dtype):
    if dtype == "bf16":
        f.create_dataset(name, data=bf16(a).view("V2")).attrs["dtype"] = "bfloat16"
    else:
        f[name] = np.asarray(a).astype(dtype)

def make(dtype, ntensors=200, seed=5):
    r = np.random.default_rng(seed)
    shapes = []
    for i in range(ntensors):
        k = r.integers(0, 4)
        shapes.append(() if k == 0 else (int(r.integers(1, 60)),) if k == 1 else
                      (int(r.integers(1, 9)), int(r.integers(1, 9))))
    scale = 1.0 if dtype != "f2" else 0.5
    base = [r.standard_normal(s) * scale for s in shapes]
    files = [h5py.File(n, "w") for n in ["base.h5", "m0.h5", "m1.h5", "m2.h5"]]
    for i, s in enumerate(shapes):
        b = base[i]
        # task vectors of several sizes, some elements not changed at
        # all and some changes equal in size (ties in magnitude)
        vals = [b]
        for m in range(3):
            d = r.standard_normal(s) * 0.05 * 10.0 ** r.integers(-2, 1)
            d = np.where(r.random(s) < 0.15, 0.0, d)
            d = np.where(r.random(s) < 0.1, 0.03125, d)
            vals.append(b + d)
        for f, v in zip(files, vals):
            store(f, f"t{i:03d}", v, dtype)
    for k, f in enumerate(files):
        f["ints"] = np.arange(6, dtype="i4") + k  # copied from the base
        f.close()

# ---- reading, exactly ---------------------------------------------------

FORMATS = {"f2": (11, -14, 15), "f4": (24, -126, 127), "bf16": (8, -126, 127),
           "f8": (53, -1022, 1023)}

def load(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                a = obj[()]
                if obj.attrs.get("dtype") in ("bfloat16", b"bfloat16"):
                    u = np.atleast_1d(np.asarray(a)).view("u2").astype("u4") << np.uint32(16)
                    out[name] = ("bf16", u.view("f4").reshape(np.shape(a)))
                else:
                    out[name] = ({"float16": "f2", "float32": "f4", "float64": "f8"}
                                 .get(np.asarray(a).dtype.name, "int"), np.asarray(a))
        f.visititems(visit)
    return out

def round_to(q, kind):
    """The float of format kind nearest q (ties to even), as a Python float
    (exactly representable in a double) or +-inf."""
    p, emin, emax = FORMATS[kind]
    if q == 0:
        return 0.0
    sign, q = (-1 if q < 0 else 1), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if F(2) ** e > q:
        e -= 1
    while F(2) ** (e + 1) <= q:
        e += 1
    e = max(e, emin)
    ulp = F(2) ** (e - p + 1)
    n = q / ulp
    k = math.floor(n)
    rem = n - k
    if rem > F(1, 2) or (rem == F(1, 2) and k % 2 == 1):
        k += 1
    v = k * ulp
    if v >= F(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(v)

# ---- the man page's definitions ------------------------------------------

M64 = (1 << 64) - 1

def mix64(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)

def dare_key(seed, name):
    h = 0xcbf29ce484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001b3) & M64
    return mix64(seed ^ h)

def dare_draw(key, model, index):
    k = mix64((key + model) & M64)
    return (mix64((k + (index + 1) * 0x9e3779b97f4a7c15) & M64) >> 11) * 2.0 ** -53

def floor_times(d, n):
    return max(0, min(n, math.floor(F(d) * n)))

def magnitude_key(x, b):
    return struct.unpack("<Q", struct.pack("<d", abs(float(x) - float(b))))[0] & ~(1 << 63)

def sign(x):
    return (x > 0) - (x < 0)

def parse(args):
    o = {"method": None, "lambda": 1.0, "density": 1.0, "gamma": 0.01, "seed": 0,
         "sign": "sum", "t": None, "w": None, "normalize": True}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--no-normalize":
            o["normalize"] = False
        else:
            v = args[i + 1]
            i += 1
            key = {"--method": "method", "--lambda": "lambda", "--density": "density",
                   "--gamma": "gamma", "--seed": "seed", "--sign": "sign", "-t": "t",
                   "-w": "w"}[a]
            o[key] = v if key in ("method", "sign") else int(v) if key == "seed" else \
                [float(x) for x in v.split(",")] if key == "w" else float(v)
        i += 1
    return o

def window(o, n):
    m = o["method"]
    if m not in ("ties", "breadcrumbs", "breadcrumbs-ties") or o["density"] >= 1:
        return 0, n
    target = floor_times(o["density"], n)
    if m == "ties":
        return 0, target
    top = min(floor_times(o["gamma"], n), n - target)
    return top, target

def task_vector_merge(o, name, b, xs):
    """b + lambda S / D, element by element (flat arrays of floats)."""
    m, n, N = o["method"], b.size, len(xs)
    elect = m in ("ties", "dare-ties", "breadcrumbs-ties")
    dare = m.startswith("dare")
    w, divisor = o["w"], 1
    if w is None:
        w = [1.0] * N
        if o["normalize"]:
            divisor = N
    elif o["normalize"]:
        s = math.fsum(w)
        w = [x / s for x in w]
    norm_elect = elect and o["normalize"]
    dc = F(o["density"] if dare else 1) * (1 if norm_elect else divisor)
    keep = np.ones((N, n), bool)
    if m in ("ties", "breadcrumbs", "breadcrumbs-ties"):
        first, count = window(o, n)
        for k in range(N):
            keys = [magnitude_key(xs[k][g], b[g]) for g in range(n)]
            order = sorted(range(n), key=lambda g: (-keys[g], g))
            keep[k] = False
            for g in order[first:first + count]:
                keep[k][g] = True
    if dare:
        key = dare_key(o["seed"], name)
        for k in range(N):
            for g in range(n):
                keep[k][g] = dare_draw(key, k, g) < o["density"]
    out = []
    for g in range(n):
        bb = F(float(b[g]))
        tau = [F(float(xs[k][g])) - bb for k in range(N)]
        A = [k for k in range(N) if keep[k][g]]
        if elect:
            if o["sign"] == "sum":
                s = 1 if sum(F(w[k]) * tau[k] for k in A) >= 0 else -1
            else:
                s = 1 if sum(sign(w[k]) * sign(tau[k]) for k in A) >= 0 else -1
            A = [k for k in A if sign(w[k]) * sign(tau[k]) == s]
        S = sum((F(w[k]) * tau[k] for k in A), F(0))
        D = dc * (sum((F(w[k]) for k in A), F(0)) if norm_elect else 1)
        out.append(bb + F(o["lambda"]) * (S / D if D != 0 else 0))
    return out

def slerp(o, x0, x1):
    dot = float(sum(F(float(a)) * F(float(c)) for a, c in zip(x0, x1)))
    n0 = float(sum(F(float(a)) ** 2 for a in x0))
    n1 = float(sum(F(float(a)) ** 2 for a in x1))
    t = o["t"]
    u0, u1 = math.sqrt(n0), math.sqrt(n1)
    u0 = u0 if u0 > 1e-8 else 1.0
    u1 = u1 if u1 > 1e-8 else 1.0
    c = dot / (u0 * u1)
    if abs(c) > 0.9995:
        s0, s1 = 1 - t, t
    else:
        th = math.acos(c)
        st = math.sin(th)
        s0, s1 = math.sin(th - th * t) / st, math.sin(th * t) / st
    return [F(s0) * F(float(a)) + F(s1) * F(float(c)) for a, c in zip(x0, x1)]

def model_stock(b, xs):
    N = len(xs)
    taus = [[F(float(x[g])) - F(float(b[g])) for g in range(b.size)] for x in xs]
    dots = {(i, j): float(sum(p * q for p, q in zip(taus[i], taus[j])))
            for i in range(N) for j in range(i, N)}
    total, pairs = 0.0, 0
    for i in range(N):
        for j in range(i + 1, N):
            prod = math.sqrt(dots[i, i]) * math.sqrt(dots[j, j])
            c = dots[i, j] / (prod if prod > 1e-6 else 1e-6)
            total += max(-1.0, min(1.0, c))
            pairs += 1
    total /= pairs
    t = N * total / (1 + (N - 1) * total)
    return [F(float(b[g])) + F(t) * sum(tau[g] for tau in taus) / N for g in range(b.size)]

def bits(v, kind):
    fmt = {"f2": "<e", "f4": "<f", "bf16": "<f", "f8": "<d"}[kind]
    return struct.pack(fmt, v)

def check(out_path, args):
    o = parse(args)
    out = load(out_path)
    if o["method"] == "slerp":
        ins = [load("m0.h5"), load("m1.h5")]
    else:
        ins = [load(p) for p in ["base.h5", "m0.h5", "m1.h5", "m2.h5"]]
    bad = 0
    for name, (kind, a) in sorted(ins[0].items()):
        got_kind, got = out[name]
        if kind == "int":
            assert np.array_equal(got, a), f"{name}: not the base's integers"
            continue
        b = a.reshape(-1)
        xs = [i[name][1].reshape(-1) for i in ins[1:]]
        if o["method"] == "slerp":
            exact = slerp(o, b, xs[0])
        elif o["method"] == "model-stock":
            exact = model_stock(b, xs)
        else:
            exact = task_vector_merge(o, name, b, xs)
        for g, q in enumerate(exact):
            want = round_to(q, kind)
            have = float(got.reshape(-1)[g])
            if bits(want, kind) != bits(have, kind):
                bad += 1
                if bad <= 5:
                    print(f"{name}[{g}]: {have!r}, exactly {float(q)!r} rounds to {want!r}")
    if bad:
        sys.exit(f"{bad} elements differ ({' '.join(args)})")

SUITE = [
    "--method task-arithmetic",
    "--method task-arithmetic -w 1,2,3 --lambda 0.7",
    "--method task-arithmetic --no-normalize --lambda 0.3",
    "--method ties --density 0.3",
    "--method ties --density 0.3 --sign count -w 0.2,0.3,0.5",
    "--method ties --no-normalize --density 0.5 -w 0.5,-0.25,1",
    "--method dare-ties --density 0.6 --seed 7",
    "--method dare-linear --density 0.5 --seed 3 --lambda 1.5",
    "--method breadcrumbs --density 0.5 --gamma 0.1",
    "--method breadcrumbs-ties --density 0.4 --gamma 0.05",
    "--method model-stock",
    "--method slerp -t 0.3",
    "--method slerp -t 0.75",
]

def suite(dtype):
    make(dtype)
    for line in SUITE:
        args = line.split()
        inputs = ["m0.h5", "m1.h5"] if "slerp" in args else \
            ["--base", "base.h5", "m0.h5", "m1.h5", "m2.h5"]
        subprocess.run(["ckpt-average", *args, *inputs, "-o", "out.h5", "-f"], check=True)
        check("out.h5", args)

if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "suite":
        suite(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
