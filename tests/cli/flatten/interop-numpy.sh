# The flat stream equals numpy's concatenation of the arrays in manifest
# order, which is the order the variables were made; a vector numpy writes
# fills a template as set_flat would.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(5)
with h5py.File("mixed.h5", "w", track_order=True) as f:
    f["z/kernel"] = r.standard_normal((7, 5)).astype("f4")
    f["a/bias"] = r.standard_normal(5).astype("f2")
    f["a/deep/er"] = r.integers(-2**40, 2**40, (2, 3, 4))
    f["scalar"] = np.float64(r.standard_normal())
    f["empty"] = np.zeros((0, 4), "f4")
    f["flags"] = r.random(6) > 0.5
    f["u8"] = r.integers(0, 255, 9, dtype="u1")
with h5py.File("f32.h5", "w", track_order=True) as f:
    for i in range(5):
        f[f"layer{4 - i}/w"] = r.standard_normal((3, i + 1)).astype("f4")
open("mixed.h5.order", "w").write("z/kernel a/bias a/deep/er scalar empty flags u8")
open("f32.h5.order", "w").write(" ".join(f"layer{4 - i}/w" for i in range(5)))
PY
ckpt-flatten --dtype f64 --manifest mixed.tsv -o mixed.bin mixed.h5 || fail "flatten mixed"
ckpt-flatten --manifest f32.tsv -o f32.bin f32.h5 || fail "flatten f32"
ckpt-flatten --big-endian -o f32be.bin f32.h5 || fail "flatten f32 big-endian"
"$PY" - <<'PY' || fail "differs from numpy"
import h5py, numpy as np
# the order the datasets were made in
order = {h5: open(h5 + ".order").read().split() for h5 in ["mixed.h5", "f32.h5"]}
def check(h5, tsv, bin, dtype):
    lines = open(tsv).read().splitlines()
    names = [l.split("\t")[0] for l in lines[1:]]
    with h5py.File(h5, "r") as f:
        made = order[h5]
        assert names == made, (names, made)
        for l in lines[1:]:
            n, t, shape, off, cnt = l.split("\t")
            assert int(cnt) == f[n].size and shape == str(list(f[n].shape)).replace(" ", ""), l
        want = np.concatenate([np.asarray(f[n][()]).ravel().astype(dtype) for n in names])
    got = np.fromfile(bin, dtype)
    assert got.shape == want.shape and np.array_equal(got, want), (got[:5], want[:5])
check("mixed.h5", "mixed.tsv", "mixed.bin", "<f8")
check("f32.h5", "f32.tsv", "f32.bin", "<f4")
check("f32.h5", "f32.tsv", "f32be.bin", ">f4")
# numpy's own flat vector into the f32 template
np.arange(int(open("f32.tsv").readline().split("count=")[1]), dtype="<f4").tofile("set.bin")
PY
ckpt-unflatten --template f32.h5 -o set.h5 set.bin || fail "unflatten"
"$PY" - <<'PY' || fail "set_flat differs"
import h5py, numpy as np
with h5py.File("f32.h5", "r") as t, h5py.File("set.h5", "r") as s:
    off = 0
    for n in open("f32.h5.order").read().split():
        want = np.arange(off, off + t[n].size, dtype="f4").reshape(t[n].shape)
        assert s[n].dtype == t[n].dtype and np.array_equal(s[n][()], want), n
        off += t[n].size
PY
