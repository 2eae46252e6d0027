# The average of one input is that input: every value bit for bit (NaN
# payloads, -0), its storage kept (a lossy filter too, without a warning:
# nothing is computed); -w with --no-normalize and --dtype still compute.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "cannot make in.h5"
import h5py, numpy as np
with h5py.File("in.h5", "w") as f:
    f["w"] = np.array([0x7fc00001, 0x80000000, 0x3f800000], "u4").view("f4")
    f.create_dataset("q", data=np.linspace(0, 1, 50, dtype="f4"), scaleoffset=3)
PY
run ckpt-average -o out.h5 in.h5
expect_status 0
expect_quiet_stderr
"$PY" - <<'PY' || fail "out.h5 is not in.h5's values and storage"
import h5py
a, b = h5py.File("in.h5", "r"), h5py.File("out.h5", "r")
assert a["w"][()].view("u4").tolist() == b["w"][()].view("u4").tolist(), b["w"][()].view("u4")
assert (a["q"][()] == b["q"][()]).all() and b["q"].scaleoffset == 3
PY
run ckpt-average --no-normalize -w 2 -o twice.h5 in.h5
expect_status 0
"$PY" -c "import h5py; assert h5py.File('twice.h5')['w'][2] == 2" || fail "-w 2 --no-normalize"
