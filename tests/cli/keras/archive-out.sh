# An output named .keras from a .keras base is a .keras archive: the
# base's members in the base's order, every member but model.weights.h5
# byte for byte, model.weights.h5 the result (checked with zipfile and
# h5py against numpy).  Other names with a .keras base write the weights
# file as before; a .keras output needs a .keras base.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/keras/mkkeras.py" . a 1 && "$PY" "$TOP/tests/cli/keras/mkkeras.py" . b 2 ||
	fail "cannot make the Keras files"
check() { # check OUT BASE EXPECT.h5: archive like BASE, weights equal EXPECT.h5
	"$PY" - "$@" <<'PY' || fail "$1 is not the .keras archive expected"
import io, sys, zipfile, h5py, numpy as np
out, base, want = sys.argv[1:]
zo, zb = zipfile.ZipFile(out), zipfile.ZipFile(base)
assert zo.testzip() is None
assert zo.namelist() == zb.namelist(), (zo.namelist(), zb.namelist())
for n in zb.namelist():
    if n != "model.weights.h5":
        assert zo.read(n) == zb.read(n), n
w = h5py.File(io.BytesIO(zo.read("model.weights.h5")), "r")
e = h5py.File(want, "r")
names = []
e.visit(lambda k: names.append(k) if isinstance(e[k], h5py.Dataset) else None)
got = []
w.visit(lambda k: got.append(k) if isinstance(w[k], h5py.Dataset) else None)
assert got == names, (got, names)
for k in names:
    assert w[k].dtype == e[k].dtype and (w[k][()] == e[k][()]).all(), k
for g in ["layers/dense/vars", "optimizer/vars"]:
    assert dict(w[g].attrs) == dict(e[g].attrs), g
PY
}

run ckpt-average -o avg.keras a.keras b.keras
expect_status 0
expect_quiet_stderr
run ckpt-average -o avg.h5 a.weights.h5 b.weights.h5
expect_status 0
check avg.keras a.keras avg.h5

# the average is numpy's
"$PY" - <<'PY' || fail "the average is not numpy's"
import h5py, numpy as np
a, b, o = (h5py.File(n, "r") for n in ("a.weights.h5", "b.weights.h5", "avg.h5"))
def each(k, d):
    if isinstance(d, h5py.Dataset) and d.dtype.kind == "f":
        want = ((a[k][()].astype("f8") + b[k][()].astype("f8")) / 2).astype(d.dtype)
        assert (d[()] == want).all(), k
o.visititems(each)
PY

# -f replaces, keeping the archive form; the base's members come from the
# first input
run ckpt-average -o avg.keras b.keras a.keras
expect_error ckpt-average "avg.keras: already exists"
run ckpt-average -f -o avg.keras b.keras a.keras
expect_status 0
check avg.keras b.keras avg.h5

# ckpt-merge (BASE) and ckpt-unflatten (--template) write archives too
run ckpt-merge -o m.keras a.keras b.weights.h5
expect_status 0
check m.keras a.keras b.weights.h5
run ckpt-flatten --dtype f64 -o flat.bin b.keras
expect_status 0
run ckpt-unflatten --dtype f64 --template a.keras -o u.keras flat.bin
expect_status 0
check u.keras a.keras b.weights.h5

# the archive goes where -o says, and nothing else
# is left beside it
mkdir d && run ckpt-average -o d/x.keras a.keras b.keras
expect_status 0
[ "$(ls -A d)" = x.keras ] || fail "left in d: $(ls -A d)"

# other output names: the weights file, as before
run ckpt-average -o plain.h5 a.keras b.keras
expect_status 0
"$PY" -c 'import h5py; h5py.File("plain.h5", "r")' || fail "plain.h5 is not HDF5"
ckpt-average -o - a.keras b.keras >stdout.h5 2>"$T/err" || fail "-o -: $(cat "$T/err")"
run ckpt-diff stdout.h5 plain.h5
expect_status 0

# a .keras output needs a .keras base
run ckpt-average -o bad.keras a.weights.h5 b.keras
expect_error ckpt-average "bad.keras: a .keras output needs a .keras base .*\(a.weights.h5 is not one\)"
expect_no_file bad.keras
run ckpt-unflatten --dtype f64 --manifest /dev/null -o bad.keras flat.bin
expect_status 2
expect_no_file bad.keras
