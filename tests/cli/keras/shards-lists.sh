# A Keras 3.11+ map, where a layer whose variables straddle shards maps to
# the list of its shards ({"/layers/dense/vars": ["a_00000...",
# "a_00001..."]}; it was "is not mapped to a file name"), is read as the
# union of the shards, like the unsharded file; a set written from it keeps
# the list, naming its own shards; an empty list is refused.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/keras/mkkeras.py" . a 1 lists || fail "cannot make the Keras files"
grep -q '"a_00000.weights.h5",' a.weights.json || fail "mkkeras wrote no list: $(cat a.weights.json)"
run ckpt-read --names a.weights.json
expect_status 0
cp "$T/out" set.names
run ckpt-read --names a.weights.h5
cmp -s "$T/out" set.names || fail "names differ: $(diff set.names "$T/out")"
run ckpt-diff a.weights.json a.weights.h5
expect_status 0
run ckpt-average -o b.weights.json a.weights.json a.weights.json
expect_status 0
"$PY" - <<'PY' || fail "b.weights.json: $(cat b.weights.json)"
import json
m = json.load(open("b.weights.json"))["weight_map"]
assert m["/layers/dense/vars"] == ["b_00000.weights.h5", "b_00001.weights.h5"], m
assert m["/layers/dense_1/vars"] == "b_00001.weights.h5", m
PY
run ckpt-diff b.weights.json a.weights.h5
expect_status 0
"$PY" - <<'PY' || fail "cannot write the bad map"
import json
m = json.load(open("a.weights.json"))
m["weight_map"]["/layers/dense/vars"] = []
json.dump(m, open("empty.weights.json", "w"))
PY
run ckpt-read empty.weights.json
expect_error ckpt-read 'weight_map: "/layers/dense/vars" is not mapped to a file name'
