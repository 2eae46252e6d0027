# Averages of random checkpoints of every dtype (float16 included) equal
# numpy's to the last rounding: floats as float64 sums / N rounded to the
# type (float64 with an exactly rounded sum), integers exactly, rounded
# half to even.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(11)
for k in range(3):
    with h5py.File(f"r{k}.h5", "w") as f:
        for t in ["f2", "f4", "f8"]:
            f[t] = (r.standard_normal((40, 7)) * 10.0 ** r.integers(-3, 3)).astype(t)
        f["f2big"] = r.uniform(-65504, 65504, 50).astype("f2")
        f["f2tiny"] = (r.standard_normal(50) * 1e-6).astype("f2")
        for t in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
            info = np.iinfo(t)
            f[t] = r.integers(info.min, info.max, 64, dtype=t, endpoint=True)
        f["bool"] = r.random(30) > 0.5
        f["scalar"] = np.float32(r.standard_normal())
PY
run ckpt-average -o avg.h5 r0.h5 r1.h5 r2.h5
expect_status 0
"$PY" - <<'PY' || fail "differs from numpy"
import h5py, math, numpy as np
ins = [h5py.File(f"r{k}.h5", "r") for k in range(3)]
out = h5py.File("avg.h5", "r")
for name in ins[0]:
    got = out[name][()]
    arrs = [f[name][()] for f in ins]
    t = arrs[0].dtype
    assert got.dtype == t, (name, got.dtype)
    if t.kind == "f" and t.itemsize < 8:
        want = (np.stack(arrs).astype("f8").sum(axis=0) / 3).astype(t)
    elif t.kind == "f":
        flat = [math.fsum(v) / 3 for v in zip(*[a.ravel().tolist() for a in arrs])]
        want = np.array(flat, "f8").reshape(arrs[0].shape)
    else:  # exact integer mean, rounded half to even
        s = [sum(int(x) for x in v) for v in zip(*[a.ravel().tolist() for a in arrs])]
        q = [(x // 3) + (1 if (x % 3) * 2 > 3 else 0) for x in s]
        want = np.array(q, dtype=t).reshape(arrs[0].shape)
    same = (got == want) | (np.isnan(got) & np.isnan(want)) if t.kind == "f" else got == want
    assert np.all(same), (name, got[~same][:3], want[~same][:3])
PY
