# float32 values print as the shortest text that reads back the same.
need_h5py
"$PY" - "$T/x.h5" <<'PY' || fail "h5py could not write"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f["x"] = np.array([0.1, 1/3, 1e-45, 3.4028235e38, 16777217], dtype=np.float32)
    f["d"] = np.array([0.1, 1/3, 5e-324], dtype=np.float64)
PY
run ckpt-read --values "$T/x.h5"
expect_status 0
expect_out '^0.1 0.33333334 1e-45 3.4028235e\+38 16777216$'
expect_out '^0.1 0.3333333333333333 5e-324$'
