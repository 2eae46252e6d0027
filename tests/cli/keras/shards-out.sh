# An output named *.weights.json from a sharded base is a sharded set in
# Keras' layout: the base's assignment of variables to shards, shards
# named after the output, the map in Keras' schema with total_size right.
# It needs a sharded base; on failure no file of the set is left.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/keras/mkkeras.py" . a 1 && "$PY" "$TOP/tests/cli/keras/mkkeras.py" . b 2 ||
	fail "cannot make the Keras files"
run ckpt-average -o avg.weights.json a.weights.json b.weights.json
expect_status 0
expect_quiet_stderr
run ckpt-average -o avg.h5 a.weights.h5 b.weights.h5
expect_status 0
check() { # check SET BASE EXPECT.h5
	"$PY" - "$@" <<'PY' || fail "$1 is not the set expected"
import json, os, sys, h5py
out, base, want = sys.argv[1:]
stem = out[:-len(".weights.json")]
jo, jb = json.load(open(out)), json.load(open(base))
assert list(jo) == list(jb) == ["metadata", "weight_map"], list(jo)
assert list(jo["weight_map"]) == list(jb["weight_map"])
bstem = base[:-len(".weights.json")]
for k, v in jb["weight_map"].items():
    assert jo["weight_map"][k] == stem + v[len(bstem):], (k, jo["weight_map"][k])
e = h5py.File(want, "r")
total = 0
shards = sorted(set(jb["weight_map"].values()))
for sb in shards:
    so = stem + sb[len(bstem):]
    b, o = h5py.File(sb, "r"), h5py.File(so, "r")
    names = []
    b.visit(lambda k: names.append(k) if isinstance(b[k], h5py.Dataset) else None)
    got = []
    o.visit(lambda k: got.append(k) if isinstance(o[k], h5py.Dataset) else None)
    assert got == names, (so, got, names)
    for k in names:
        assert (o[k][()] == e[k][()]).all() and o[k].dtype == e[k].dtype, k
        total += o[k].nbytes
    for g in ["layers/dense/vars"]:
        if g in b:
            assert dict(o[g].attrs) == dict(b[g].attrs)
assert jo["metadata"]["total_size"] == total, (jo["metadata"], total)
assert sorted(os.listdir(os.path.dirname(out) or ".")) == sorted(set(os.listdir("."))), "?"
PY
}
check avg.weights.json a.weights.json avg.h5
[ -z "$(ls -A | grep '^\.')" ] || fail "temporaries left: $(ls -A)"

# ckpt-merge and ckpt-unflatten write sets too; -f replaces a set
run ckpt-merge -o m.weights.json a.weights.json b.keras
expect_status 0
check m.weights.json a.weights.json b.weights.h5
run ckpt-flatten --dtype f64 -o flat.bin b.weights.h5
run ckpt-unflatten --dtype f64 --template a.weights.json -o m.weights.json flat.bin
expect_error ckpt-unflatten "m.weights.json: already exists"
run ckpt-unflatten -f --dtype f64 --template a.weights.json -o m.weights.json flat.bin
expect_status 0
check m.weights.json a.weights.json b.weights.h5

# a set needs a sharded base, and a file name
run ckpt-average -o x.weights.json a.weights.h5 b.weights.json
expect_error ckpt-average "x.weights.json: a .weights.json output needs a sharded Keras base"
expect_no_file x.weights.json x_00000.weights.h5
run ckpt-average -o x.weights.json a.keras b.keras
expect_error ckpt-average "x.weights.json: a .weights.json output needs a sharded Keras base"
# a shard's name taken by a directory: nothing of the set is left
mkdir y_00001.weights.h5
run ckpt-average -o y.weights.json a.weights.json b.weights.json
expect_error ckpt-average "y_00001.weights.h5"
expect_no_file y.weights.json y_00000.weights.h5
