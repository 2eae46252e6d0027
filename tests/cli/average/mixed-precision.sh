# Inputs whose variables are floats of different types (a float32 master
# copy and a bfloat16 or float16 copy) average together into the first
# input's type (or --dtype); a float with an integer is still refused.
# (It used to say "variable 'w' is float16, a.h5 has float32".)
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
with h5py.File("m32.h5", "w") as f:
    f["w"] = np.array([1.0, 0.1, 3.0, -2.0], "f4")
with h5py.File("m16.h5", "w") as f:
    f["w"] = np.array([2.0, 0.2, 5.0, 65504.0], "f2")
with h5py.File("mi.h5", "w") as f:
    f["w"] = np.array([2, 0, 5, 1], "i4")
PY
run ckpt-average -o a.h5 m32.h5 m16.h5
expect_status 0
run ckpt-read --values a.h5
expect_out '^w float32 \[4\]$'
expect_out '^1.5 0.14997558 4 32751$'
run ckpt-average -o b.h5 m16.h5 m32.h5
expect_status 0
run ckpt-read --values b.h5
expect_out '^w float16 \[4\]$'
expect_out '^1.5 0.15 4 32752$'
run ckpt-average --dtype f64 -o c.h5 m16.h5 m32.h5
expect_status 0
run ckpt-read --values c.h5
expect_out '^1.5 0.14997558668255806 4 32751$'
run ckpt-average -o x.h5 m32.h5 mi.h5
expect_error ckpt-average "mi.h5: variable 'w' is int32, m32.h5 has float32 \(floats of different types average; other types must match\)"
expect_no_file x.h5
