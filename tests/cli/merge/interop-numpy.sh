# Against h5py and numpy: the merged file holds, for every variable of
# BASE, the value of the last SOURCE that has it (after the name mapping),
# converted to BASE's dtype; everything else is BASE's, attributes too.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(3)
def make(path, prefix, dtype, names, attrs=False):
    with h5py.File(path, "w") as f:
        for n in names:
            f[prefix + n] = r.standard_normal((3, 4)).astype(dtype)
            if attrs:
                f[prefix + n].attrs["note"] = n
        if attrs:
            f.attrs["layer_names"] = np.array([b"a", b"b"])
make("base.h5", "", "f4", ["a/w", "a/b", "b/w", "c/w"], attrs=True)
make("s1.h5", "w7/", "f8", ["a/w", "b/w", "x/w"])
make("s2.h5", "w7/", "f2", ["b/w", "c/w"])
PY
ckpt-merge -q --cast --strip-prefix w7/ --exclude 'c/*' -o out.h5 base.h5 s1.h5 s2.h5 ||
	fail "merge"
"$PY" - <<'PY' || fail "differs from numpy"
import h5py, numpy as np
with h5py.File("base.h5") as b, h5py.File("s1.h5") as s1, h5py.File("s2.h5") as s2, \
     h5py.File("out.h5") as o:
    want = {"a/w": s1["w7/a/w"][()].astype("f4"), "a/b": b["a/b"][()],
            "b/w": s2["w7/b/w"][()].astype("f4"), "c/w": b["c/w"][()]}
    names = []
    o.visititems(lambda n, x: names.append(n) if isinstance(x, h5py.Dataset) else None)
    assert sorted(names) == sorted(want), names
    for n, v in want.items():
        assert o[n].dtype == np.float32, (n, o[n].dtype)
        assert np.array_equal(o[n][()], v), n
        assert o[n].attrs["note"] == n, n
    assert list(o.attrs["layer_names"]) == [b"a", b"b"]
PY
