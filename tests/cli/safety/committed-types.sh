# Committed (named) datatypes that carry attributes, used by attributes of
# the root (made before the type is) and by the type's own attribute, as in
# h5wasm's test file array.h5: every writing program's output reads back
# in h5py and h5dump, attributes and values equal to the input's.
need_h5py
command -v h5dump >/dev/null || skip "h5dump not installed"
cd "$T"
"$PY" - <<'PY' || fail "cannot make the file"
import h5py, numpy as np
for name, more in [("ct", False), ("ct2", True)]:
    with h5py.File(name + ".h5", "w") as f:
        f["t"] = np.dtype("S4")
        f["t"].attrs["note"] = "a string type"
        f["t"].attrs.create("self", np.array(b"ab", dtype="S4"), dtype=f["t"])
        f.attrs.create("a", np.array([b"ab", b"cd"], dtype="S4"), dtype=f["t"])
        f["w"] = np.arange(6, dtype="f4").reshape(2, 3)
        if more:
            f["v"] = h5py.string_dtype()
            f["v"].attrs["n"] = 1
            f.create_dataset("s", data=["x", "y"], dtype=f["v"])
            f["w"].attrs.create("label", np.array(b"wt", dtype="S4"), dtype=f["t"])
PY
for in in ct ct2; do
ckpt-flatten -f -o flat.bin $in.h5 || fail flatten
for prog in average merge unflatten; do
	rm -f out-$prog.h5
	case $prog in
	average) run ckpt-average -o out-$prog.h5 $in.h5 $in.h5 ;;
	merge) run ckpt-merge -o out-$prog.h5 $in.h5 $in.h5 ;;
	unflatten) run ckpt-unflatten --template $in.h5 -o out-$prog.h5 flat.bin ;;
	esac
	expect_status 0
	h5dump out-$prog.h5 >/dev/null 2>&1 || fail "$prog: h5dump cannot read the output"
	"$PY" - $in.h5 out-$prog.h5 <<'PY' || fail "$prog: the output differs"
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
def attrs(o):
    return {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in o.attrs.items()}
assert attrs(a) == attrs(b), (attrs(a), attrs(b))
for n in a:
    assert attrs(a[n]) == attrs(b[n]), n
    if isinstance(a[n], h5py.Dataset):
        assert (a[n][()] == b[n][()]).all(), n
PY
done
run ckpt-diff $in.h5 out-average.h5
expect_status 0
done
