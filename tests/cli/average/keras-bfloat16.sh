# Keras 3 stores a bfloat16 weight as 2-byte opaque data marked
# dtype="bfloat16": every program takes it as bfloat16, and what they write
# keeps Keras' form (opaque + the mark) so that Keras loads it; stored as
# another type it loses the mark.  The mark on a dataset of another type is
# not believed: a warning names the variable.  (It used to be "opaque" with
# 0 parameters, and ckpt-average refused it.)
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
def bf16(x):      # float32 -> bfloat16 bits, to nearest even (numpy has none)
    u = np.asarray(x, "f4").view("u4").astype("u8")
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype("u2")
rng = np.random.default_rng(3)
for i in range(3):
    with h5py.File("k%d.h5" % i, "w") as f:
        g = f.create_group("layers/dense/vars")
        d = g.create_dataset("0", data=bf16(rng.standard_normal((4, 5))).view("V2"))
        d.attrs["dtype"] = "bfloat16"
        g["1"] = rng.standard_normal(5).astype("f4")
with h5py.File("odd.h5", "w") as f:
    f.create_dataset("n", data=np.arange(3, dtype="i2")).attrs["dtype"] = "bfloat16"
PY
run ckpt-read k0.h5
expect_out '^layers/dense/vars/0 +bfloat16 +\[4,5\] +20 +40$'
run ckpt-read --json --values --stats k0.h5
expect_status 0
run ckpt-average -o m.h5 k0.h5 k1.h5 k2.h5
expect_status 0
run ckpt-average -w 0.5,0.25,0.25 -o w.h5 k0.h5 k1.h5 k2.h5
expect_status 0
run ckpt-average --dtype f32 -o f.h5 k0.h5 k1.h5 k2.h5
expect_status 0
ckpt-flatten --dtype f32 -o flat.bin k1.h5 && ckpt-unflatten --dtype f32 --template k0.h5 -o u.h5 flat.bin ||
	fail "flatten and back"
ckpt-merge -o g.h5 k0.h5 k2.h5 || fail "merge"
"$PY" - <<'PY' || fail "values or form wrong"
import h5py, numpy as np
from fractions import Fraction as F
def val(t):                         # bfloat16 bits -> exact value
    return F(float((np.array([int(t)], "u4") << 16).view("f4")[0]))
def bits(d):                        # h5py reads the opaque bytes as |V2
    return np.frombuffer(d[()].tobytes(), "<u2").reshape(d.shape)
def round_bf16(q):                  # an exact value to bfloat16, nearest even
    u = int(np.array(np.float32(float(q))).view("u4")) >> 16
    near = [(u + k) & 0xffff for k in (-1, 0, 1)]
    near = [t for t in near if t & 0x7f80 != 0x7f80]
    return min(near, key=lambda t: (abs(val(t) - q), t & 1))
ins = [h5py.File("k%d.h5" % i) for i in range(3)]
b = [bits(f["layers/dense/vars/0"]).ravel() for f in ins]
for name, w in (("m.h5", [F(1, 3)] * 3), ("w.h5", [F(0.5), F(0.25), F(0.25)])):
    d = h5py.File(name)["layers/dense/vars/0"]
    assert d.dtype == np.dtype("V2") and d.attrs["dtype"] == "bfloat16", (name, d.dtype, dict(d.attrs))
    got = bits(d).ravel()
    for i in range(got.size):
        want = round_bf16(sum(wk * val(bk[i]) for wk, bk in zip(w, b)))
        assert got[i] == want, (name, i, hex(got[i]), hex(want))
d = h5py.File("f.h5")["layers/dense/vars/0"]
assert d.dtype == np.dtype("f4") and "dtype" not in d.attrs, (d.dtype, dict(d.attrs))
for name, src in (("u.h5", "k1.h5"), ("g.h5", "k2.h5")):
    d = h5py.File(name)["layers/dense/vars/0"]
    assert d.dtype == np.dtype("V2") and d.attrs["dtype"] == "bfloat16", name
    assert (bits(d) == bits(h5py.File(src)["layers/dense/vars/0"])).all(), name
PY
run ckpt-diff k0.h5 k0.h5
expect_status 0
run ckpt-diff --only 'layers/dense/vars/0' k0.h5 k1.h5
expect_status 1
expect_out '^layers/dense/vars/0: 20 of 20 elements differ'
run ckpt-read odd.h5
expect_status 0
expect_out '^n +int16 +\[3\]'
grep -q "^ckpt-read: odd.h5: variable 'n': marked dtype=\"bfloat16\" but stored as int16: read as int16$" "$T/err" ||
	fail "no warning: $(cat "$T/err")"
