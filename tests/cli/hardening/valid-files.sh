# Valid but unusual files that crashed programs (issue: hardening, round
# two): dense attribute storage holding a variable-length string (HDF5
# 1.10's object copy crashed on it), groups nested 5000 deep (the walk
# recursed; 500 deep under valgrind, where each walk of 5000 takes a
# minute: the same code), a file another program holds open for writing.
slow_case
need_h5py
DEPTH=5000
[ -z "${CKPT_VALGRIND:-}" ] || DEPTH=500
"$PY" - "$DEPTH" <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np, sys
with h5py.File("dense.h5", "w", libver="latest") as f:
    d = f.create_dataset("w", data=np.ones(3, "f4"))
    for k in range(10):
        d.attrs["a%d" % k] = k
    d.attrs["s"] = "a variable-length string"
    f["x"] = np.ones(2, "f4")
with h5py.File("deep.h5", "w") as f:
    g = f
    for i in range(int(sys.argv[1])):
        g = g.create_group("g")
    g["w"] = np.ones(2, "f4")
PY
run ckpt-average --exclude w -o x.h5 dense.h5 dense.h5
expect_status 0
run ckpt-merge --split 2 -o 's%d.h5' dense.h5
expect_status 0
run ckpt-merge --join -o j.h5 s0.h5 s1.h5
expect_status 0
"$PY" "$TOP/tests/cli/integrity/same.py" dense.h5 x.h5 || fail "dense: average lost something"
"$PY" "$TOP/tests/cli/integrity/same.py" dense.h5 j.h5 || fail "dense: split+join lost something"
run ckpt-read deep.h5
expect_status 0
expect_out "^(g/){$DEPTH}w +float32"
run ckpt-diff deep.h5 deep.h5
expect_status 0
# copied group by group from the one above (by whole paths it took depth^2
# steps in HDF5: 1000 deep, 6.5 s)
run ckpt-average -o d.h5 deep.h5 deep.h5
expect_status 0
run ckpt-diff d.h5 deep.h5
expect_status 0
"$PY" - "$REALBIN" <<'PY' || fail "open for writing"
import h5py, numpy as np, subprocess, sys
with h5py.File("open.h5", "w") as f:
    f["w"] = np.ones(3, "f4")
    f.flush()
    r = subprocess.run([sys.argv[1] + "/ckpt-read", "open.h5"], capture_output=True, text=True)
    assert r.returncode == 2, r
    assert r.stderr.count("\n") == 1, r.stderr
    assert "open.h5: open for writing by another program" in r.stderr, r.stderr
PY
expect_no_file
# an integer stored in fewer bits than it occupies is listed as such, and
# ckpt-average says why it does not average it
"$PY" - <<'PY' || fail "cannot make the 20-bit input"
import h5py, numpy as np
for name, v in (("p20a.h5", 1), ("p20b.h5", 2)):
    with h5py.File(name, "w") as f:
        t = h5py.h5t.STD_I32LE.copy(); t.set_precision(20)
        s = h5py.h5s.create_simple((3,))
        d = h5py.h5d.create(f.id, b"n", t, s)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.full(3, v, "i4"))
        f["w"] = np.full(2, v, "f4")
PY
run ckpt-read p20a.h5
expect_out "^n +int32\(20-bit\) "
run ckpt-average -o p.h5 p20a.h5 p20b.h5
expect_error ckpt-average "p20b.h5: variable 'n' \(int32\(20-bit\), not a numeric type ckpt computes with\) differs from p20a.h5's; it cannot be averaged"
run ckpt-average --exclude n -o p.h5 p20a.h5 p20b.h5
expect_status 0
