# A Hugging Face sharded set (NAME.safetensors.index.json with its shards)
# is one checkpoint: the shards' tensors, shard by shard in data order;
# recognised by its content; written as one file or as a set like it.  A
# map that does not fit
# its shards is refused naming the tensor.
need_h5py
cd "$T"
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "cannot make the set"
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, st
rng = np.random.default_rng(5)
t = [("model.embed.weight", rng.standard_normal((4, 3)).astype("f4")),
     ("model.layers.0.w", rng.standard_normal(3).astype("f2")),
     ("model.layers.1.w", rng.standard_normal((2, 2)).astype("f4")),
     ("lm_head.weight", rng.standard_normal(5).astype("f4"))]
st.write("whole.safetensors", t, metadata={"format": "pt"})
names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
st.write(names[0], t[:2], metadata={"format": "pt"})
st.write(names[1], t[2:], metadata={"format": "pt"})
wm = {n: names[i >= 2] for i, (n, _) in enumerate(t)}
def index(path, m):
    json.dump({"metadata": {"total_size": 90}, "weight_map": dict(sorted(m.items()))},
              open(path, "w"), indent=2)
index("model.safetensors.index.json", wm)
index("unnamed.json", wm)  # recognised by content, not name
index("missing.safetensors.index.json", {k: v for k, v in wm.items() if k != "lm_head.weight"})
index("extra.safetensors.index.json", dict(wm, **{"model.norm": names[1]}))
index("wrong.safetensors.index.json", dict(wm, **{"lm_head.weight": names[0]}))
st.write("other-1.safetensors", t[:2])
PY
run ckpt-read model.safetensors.index.json
expect_status 0
[ "$(awk 'NR > 1 && NF == 5 { print $1 }' out | tr '\n' ' ')" = "model.embed.weight model.layers.0.w model.layers.1.w lm_head.weight " ] ||
	fail "not in the shards' order: $(cat out)"
expect_out "^2 safetensors shards listed in model.safetensors.index.json: model-00001-of-00002.safetensors model-00002-of-00002.safetensors$"
run ckpt-read --json unnamed.json
expect_out '"container": \{"kind": "safetensors shards", "path": "unnamed.json", "shards": \['
run ckpt-diff model.safetensors.index.json whole.safetensors
expect_status 0
run ckpt-average -o one.safetensors model.safetensors.index.json
expect_status 0
cmp -s one.safetensors whole.safetensors || fail "the set written as one file differs"
run ckpt-average -o one.h5 model.safetensors.index.json whole.safetensors
expect_status 0
run ckpt-diff one.h5 whole.safetensors
expect_status 0

# an output named *.safetensors.index.json from a set: a set like it, as
# transformers writes one (shards NAME-0000k-of-0000n, the map with sorted
# keys, total_size the bytes of the values), committed together
cp model.safetensors.index.json b.safetensors.index.json
run ckpt-average -o avg.safetensors.index.json model.safetensors.index.json b.safetensors.index.json
expect_status 0
expect_quiet_stderr
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "avg.safetensors.index.json is not the set expected"
import json, sys
sys.path.insert(0, sys.argv[1])
import st
base, out = json.load(open("model.safetensors.index.json")), json.load(open("avg.safetensors.index.json"))
names = ["avg-00001-of-00002.safetensors", "avg-00002-of-00002.safetensors"]
assert out["weight_map"] == {k: v.replace("model-", "avg-") for k, v in base["weight_map"].items()}, out
text = open("avg.safetensors.index.json").read()
assert text == json.dumps(out, indent=2, sort_keys=True) + "\n", text
total = 0
for n in names:
    meta, tensors = st.read(n)
    bmeta, btensors = st.read(n.replace("avg-", "model-"))
    assert meta == bmeta and [t[:3] for t in tensors] == [t[:3] for t in btensors], n
    total += sum(len(t[3]) for t in tensors)
assert out["metadata"] == {"total_size": total}, out["metadata"]
PY
run ckpt-diff avg.safetensors.index.json whole.safetensors
expect_status 0
run ckpt-merge -o m.safetensors.index.json model.safetensors.index.json whole.safetensors
expect_status 0
run ckpt-diff m.safetensors.index.json whole.safetensors
expect_status 0
run ckpt-average -o avg.safetensors.index.json model.safetensors.index.json
expect_error ckpt-average "avg.safetensors.index.json: already exists"
run ckpt-average -o one.safetensors.index.json whole.safetensors
expect_error ckpt-average "one.safetensors.index.json: a .safetensors.index.json output needs a sharded safetensors base"
expect_no_file one.safetensors.index.json one-00001-of-00001.safetensors

# ckpt-merge --split K -o NAME.safetensors.index.json: a new set, read
# back as the file it came from
run ckpt-merge --split 3 --by size -o sp.safetensors.index.json whole.safetensors
expect_status 0
run ckpt-diff sp.safetensors.index.json whole.safetensors
expect_status 0
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "sp.safetensors.index.json is not a set"
import json, sys
sys.path.insert(0, sys.argv[1])
import st
idx = json.load(open("sp.safetensors.index.json"))
files = sorted(set(idx["weight_map"].values()))
assert files == [f"sp-0000{k}-of-00003.safetensors" for k in (1, 2, 3)], files
total = 0
for f in files:
    meta, tensors = st.read(f)
    assert meta == {"format": "pt"}, meta
    assert all(idx["weight_map"][t[0]] == f for t in tensors)
    total += sum(len(t[3]) for t in tensors)
assert idx["metadata"]["total_size"] == total and len(idx["weight_map"]) == 4
PY
run ckpt-merge -n --split 2 -o dry.safetensors.index.json whole.safetensors
expect_status 0
expect_out "^model.layers.0.w	dry-00002-of-00002.safetensors$"
expect_no_file dry.safetensors.index.json dry-00001-of-00002.safetensors

bad() { # bad FILE PATTERN
	run ckpt-read "$1"
	expect_error ckpt-read "$2"
	run ckpt-average -o out.safetensors "$1"
	expect_error ckpt-average "$2"
	expect_no_file out.safetensors
}
bad missing.safetensors.index.json "missing.safetensors.index.json: weight_map does not name tensor 'lm_head.weight' of shard model-00002-of-00002.safetensors"
bad extra.safetensors.index.json "extra.safetensors.index.json: weight_map: tensor 'model.norm' is not in model-00002-of-00002.safetensors"
bad wrong.safetensors.index.json "wrong.safetensors.index.json: weight_map puts tensor 'lm_head.weight' in model-00001-of-00002.safetensors, but model-00002-of-00002.safetensors holds it"
"$PY" -c "import h5py; h5py.File('h.h5', 'w')['x'] = [1.0]" || fail "no h5py"
printf '{"weight_map": {"a": "h.h5", "b": "other-1.safetensors"}}' >mixed.json
bad mixed.json "mixed.json: shards of two formats: h.h5 and other-1.safetensors"
