# ckpt-read agrees with h5py on names, dtypes, shapes and values: our
# fixtures, and files h5py writes itself (float16, bool, big-endian, chunked).
need_h5py
"$PY" - "$T/h5py.h5" <<'PY' || fail "h5py could not write"
import sys, h5py, numpy as np
r = np.random.default_rng(7)
with h5py.File(sys.argv[1], "w") as f:
    for t in ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
        f[f"le/{t}"] = (r.standard_normal((3, 5)) * 100).astype("<" + t)
        f[f"be/{t}"] = (r.standard_normal((4,)) * 100).astype(">" + t)
    f["bool"] = r.standard_normal(7) > 0
    f.create_dataset("chunked", data=r.standard_normal((50, 40)).astype("f4"),
                     chunks=(7, 9), compression="gzip", shuffle=True)
    f["scalar"] = np.float32(0.1)
    f["empty"] = np.zeros((0, 4), "f8")
    f["tiny"] = np.array([5e-324, -0.0, np.inf, np.nan], "f8")
    f["half_sub"] = np.array([6e-8, -6e-5, 65504], "f2")
PY
"$PY" "$TOP/tests/interop/read_check.py" "$BIN/ckpt-read" "$T/h5py.h5" \
	"$FIX/model.h5" "$FIX/order.h5" >"$T/log" 2>&1 || fail "$(cat "$T/log")"
