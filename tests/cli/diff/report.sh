# Variables only in A or B, different shapes and dtypes, different values:
# each reported, then a summary; exit 1.  Identical files: exit 0.
cd "$T"
need_h5py
"$PY" - <<'PY' || fail h5py
import h5py, numpy as np
with h5py.File("a.h5", "w") as f:
    f["same"] = np.arange(4, dtype="f4")
    f["vals"] = np.array([[1, 2, 3], [4, 5, 6]], "f4")
    f["shape"] = np.zeros((2, 3), "f4")
    f["dtype"] = np.array([0.5, 0.25], "f2")
    f["only_a"] = np.zeros(1, "f4")
    f["zero"] = np.array([0.0, np.nan], "f8")
with h5py.File("b.h5", "w") as f:
    f["same"] = np.arange(4, dtype="f4")
    f["vals"] = np.array([[1, 2, 3.5], [4, 0, 6]], "f4")
    f["shape"] = np.zeros((3, 2), "f4")
    f["dtype"] = np.array([0.5, 0.25], "f4")
    f["only_b"] = np.zeros(1, "f4")
    f["zero"] = np.array([-0.0, np.nan], "f8")
PY
run ckpt-diff a.h5 b.h5
expect_status 1
expect_out '^vals: 2 of 6 elements differ; max abs diff 5 at \[1,1\], max rel diff inf, rms diff '
expect_out '^shape: shape \[2,3\] in a.h5, \[3,2\] in b.h5$'
expect_out '^dtype: dtype float16 in a.h5, float32 in b.h5$'
expect_out '^only in a.h5: only_a$'
expect_out '^only in b.h5: only_b$'
expect_out '^5 variables compared, 3 differ; 1 only in a.h5, 1 only in b.h5$'
expect_no_out '^same|^zero'
run ckpt-diff a.h5 a.h5
expect_status 0
expect_out '^6 variables compared, 0 differ'
run ckpt-diff -q a.h5 b.h5
expect_status 1
[ ! -s "$T/out" ] || fail "-q printed: $(cat "$T/out")"
run ckpt-diff -n 5 --only vals a.h5 b.h5
expect_out '^  \[0,2\] 3 3.5$'
expect_out '^  \[1,1\] 5 0$'
run ckpt-diff --stats --only same a.h5 b.h5
expect_status 0
expect_out '^same: equal: cosine 1, rel l2 0$'
run ckpt-diff --bitwise --only zero a.h5 b.h5
expect_status 1
expect_out '^zero: 1 of 2 elements differ'
