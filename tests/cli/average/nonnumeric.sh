# Strings and compounds: copied when identical in all inputs, else an error.
cd "$T"
need_h5py
"$PY" - <<'PY' || fail h5py
import h5py, numpy as np
for n, label in [("a", "x"), ("b", "x"), ("c", "y")]:
    with h5py.File(n + ".h5", "w") as f:
        f["w"] = np.ones(3, "f4")
        f["label"] = np.array([label.encode()], dtype=h5py.string_dtype())
PY
run ckpt-average -o ab.h5 a.h5 b.h5
expect_status 0
run ckpt-average -o ac.h5 a.h5 c.h5
expect_error ckpt-average "c.h5: variable 'label' \(vlen-string, not a numeric type ckpt computes with\) differs"
expect_no_file ac.h5
run ckpt-average --exclude label -o ac.h5 a.h5 c.h5
expect_status 0
