# A variable stored in an external raw file, or as a virtual dataset: the
# output holds the values itself, and the input's storage is never written
# (the average used to be written into a.raw).
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
np.arange(8, dtype="f4").tofile("a.raw")
(np.arange(8, dtype="f4") * 3).tofile("b.raw")
for n in "ab":
    with h5py.File(n + ".h5", "w") as f:
        f.create_dataset("w", shape=(8,), dtype="f4", external=[(n + ".raw", 0, 32)])
with h5py.File("src.h5", "w") as f:
    f["x"] = np.arange(4, dtype="f4")
with h5py.File("v.h5", "w") as f:
    lay = h5py.VirtualLayout(shape=(4,), dtype="f4")
    lay[:] = h5py.VirtualSource("src.h5", "x", shape=(4,))
    f.create_virtual_dataset("w", lay)
PY
cksum a.raw b.raw src.h5 >before
run ckpt-average -o avg.h5 a.h5 b.h5
expect_status 0
run ckpt-average --exclude w -o copy.h5 a.h5 b.h5
expect_status 0
run ckpt-average -o vavg.h5 v.h5 v.h5
expect_status 0
run ckpt-merge -o vm.h5 v.h5 v.h5
expect_status 0
cksum a.raw b.raw src.h5 | cmp -s - before || fail "an input's storage was written"
"$PY" - <<'PY' || fail "outputs wrong"
import h5py, numpy as np
for name, want in (("avg.h5", np.arange(8) * 2), ("copy.h5", np.arange(8)),
                   ("vavg.h5", np.arange(4)), ("vm.h5", np.arange(4))):
    with h5py.File(name) as f:
        d = f["w"]
        assert d.external is None and not d.is_virtual, (name, "storage outside")
        assert (d[:] == want).all(), (name, d[:])
PY
