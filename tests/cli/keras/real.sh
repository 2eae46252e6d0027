# The real Keras 3 archives (Keras 3.8 - 3.15): averaged with themselves
# into .keras archives that keep every other member byte for byte, and
# weights equal to the input's.
need_real
need_h5py
cd "$T"
for k in "$REAL"/keras3/*.keras; do
	run ckpt-average -f -o out.keras "$k" "$k"
	expect_status 0
	"$PY" - "$k" <<'PY' || fail "$k: the output archive differs"
import io, sys, zipfile, h5py
zb, zo = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile("out.keras")
assert zo.namelist() == zb.namelist()
for i in zb.infolist():
    if i.filename != "model.weights.h5":
        assert zo.read(i.filename) == zb.read(i.filename), i.filename
b = h5py.File(io.BytesIO(zb.read("model.weights.h5")), "r")
o = h5py.File(io.BytesIO(zo.read("model.weights.h5")), "r")
def each(k, d):
    if isinstance(d, h5py.Dataset):
        assert o[k].dtype == d.dtype and (o[k][()] == d[()]).all(), k
b.visititems(each)
PY
	run ckpt-read out.keras
	expect_status 0
	expect_out "^member model.weights.h5 of the Keras archive out.keras$"
done
