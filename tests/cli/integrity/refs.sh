# References point to the same paths in every output (HDF5's own copy
# would make them null); ckpt-diff compares references by the path they
# point to and variable-length data by value: a file equals itself and its
# faithful copies.  A reference whose object an output lacks is left null,
# with a warning.
need_h5py
"$PY" - <<'PY' || fail "cannot make the input"
import h5py, numpy as np
with h5py.File("r.h5", "w") as f:
    f["x"] = np.arange(10, dtype="f8")
    f["w"] = np.ones(3, "f4")
    r = f.create_dataset("refs", (2,), dtype=h5py.ref_dtype)
    r[0], r[1] = f["x"].ref, f["w"].ref
    rr = f.create_dataset("regions", (1,), dtype=h5py.regionref_dtype)
    rr[0] = f["x"].regionref[2:5]
    f["w"].attrs["points_to"] = f["x"].ref
    t = h5py.vlen_dtype(np.dtype("i4"))
    v = f.create_dataset("vi", (2,), dtype=t)
    v[0], v[1] = [1, 2], [3]
with h5py.File("r2.h5", "w") as f:   # the same, but one vlen value differs
    f["x"] = np.arange(10, dtype="f8")
    v = f.create_dataset("vi", (2,), dtype=h5py.vlen_dtype(np.dtype("i4")))
    v[0], v[1] = [1, 2], [4]
PY
run ckpt-diff r.h5 r.h5
expect_status 0
run ckpt-average -o avg.h5 r.h5 r.h5
expect_status 0
run ckpt-diff r.h5 avg.h5
expect_status 0
run ckpt-diff --only vi r.h5 r2.h5
expect_status 1
"$PY" "$TOP/tests/cli/integrity/same.py" r.h5 avg.h5 || fail "references not kept"
"$PY" - <<'PY' || fail "references do not resolve"
import h5py
with h5py.File("avg.h5") as f:
    assert f[f["refs"][0]].name == "/x" and f[f["refs"][1]].name == "/w"
    assert f[f["w"].attrs["points_to"]].name == "/x"
    assert list(f[f["regions"][0]][f["regions"][0]]) == [2.0, 3.0, 4.0]
PY
