# A Keras sharded set (NAME.weights.json and its shards, a vars group
# continuing in the next shard) is one checkpoint for every program: the
# union of the shards, names as inside them, in Keras' order; ckpt-read
# says where it came from.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/keras/mkkeras.py" . a 1 || fail "cannot make the Keras files"
run ckpt-read a.weights.json
expect_status 0
expect_out "^layers/dense/vars/0 +float32 +\[4,3\]"
expect_out "^layers/dense/vars/1 +float32 +\[3\]"
expect_out "^2 Keras shards listed in a.weights.json: a_00000.weights.h5 a_00001.weights.h5$"
expect_out "^14 variables, 71 parameters, 288 bytes$"
# the same variables, in the same order, as the unsharded file
run ckpt-read --names a.weights.json
cp "$T/out" set.names
run ckpt-read --names a.weights.h5
cmp -s "$T/out" set.names || fail "names differ: $(diff set.names "$T/out")"
run ckpt-read --json a.weights.json
expect_status 0
"$PY" - "$T/out" <<'PY' || fail "JSON container: $(cat "$T/out")"
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
assert f["container"] == {"kind": "keras shards", "path": "a.weights.json",
                          "shards": ["a_00000.weights.h5", "a_00001.weights.h5"]}, f["container"]
PY
run ckpt-read -v a.weights.json
expect_out "^optimizer/vars/9 .* contiguous$"
# values and statistics, each from the shard that holds it
run ckpt-read --stats --format tsv a.weights.json
cp "$T/out" set.tsv
run ckpt-read --stats --format tsv a.weights.h5
sed 's/^a.weights.h5/a.weights.json/' "$T/out" | cmp -s - set.tsv || fail "stats differ"
run ckpt-diff a.weights.json a.weights.h5
expect_status 0
run ckpt-flatten -o set.bin a.weights.json --dtype f64
expect_status 0
run ckpt-flatten -o one.bin a.weights.h5 --dtype f64
cmp -s set.bin one.bin || fail "flat vectors differ"
# a set's variables into one file: groups the shards share made once
run ckpt-average -o one.h5 a.weights.json a.weights.json
expect_status 0
"$PY" - <<'PY' || fail "one.h5 differs from the unsharded file"
import h5py
a, o = h5py.File("a.weights.h5", "r"), h5py.File("one.h5", "r")
def each(k, d):
    assert k in o, k
    if isinstance(d, h5py.Dataset):
        assert (o[k][()] == d[()]).all(), k
    else:
        assert dict(o[k].attrs) == dict(d.attrs), k
a.visititems(each)
PY
# a set split and joined
run ckpt-merge --split 2 -o 's%d.h5' a.weights.json
expect_status 0
run ckpt-merge --join -o j.h5 s0.h5 s1.h5
expect_status 0
run ckpt-diff j.h5 a.weights.h5
expect_status 0
# the map's order is Keras' order of saving: a map listing the optimizer
# first lists its variables first
"$PY" - <<'PY' || fail "cannot reorder the map"
import json
m = json.load(open("a.weights.json"))
w = m["weight_map"]
m["weight_map"] = {k: w[k] for k in ["/optimizer/vars", "/layers/dense_1/vars", "/layers/dense/vars"]}
json.dump(m, open("r.weights.json", "w"))
PY
run ckpt-read --names r.weights.json
expect_status 0
[ "$(head -n 1 "$T/out")" = optimizer/vars/0 ] || fail "not in the map's order: $(cat "$T/out")"
[ "$(sed -n 11p "$T/out")" = layers/dense_1/vars/0 ] || fail "not in the map's order: $(cat "$T/out")"
[ "$(tail -n 2 "$T/out" | tr '\n' ' ')" = "layers/dense/vars/0 layers/dense/vars/1 " ] ||
	fail "a group continued in the next shard is out of order: $(cat "$T/out")"
