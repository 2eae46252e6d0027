# Hugging Face's sharded PyTorch sets (pytorch_model.bin.index.json and its
# pytorch_model-0000k-of-0000n.bin, as transformers writes them) are one
# checkpoint: listed, compared, averaged into a set like the base (shards
# named as transformers names them, the map with every tensor and
# total_size; each shard loads with torch.load(weights_only=True)), written
# as one file of any format; ckpt-merge --split K writes a new set.  A
# PyTorch file keeps no shard record: a split into plain files is refused,
# as is a set output from a base that is no set.
need_torch
"$PY" - <<'PY' || fail "cannot make the set"
import collections, json, torch
g = torch.Generator().manual_seed(5)
sd = collections.OrderedDict((f"layers.{i}.weight", torch.randn(3, 4, generator=g)) for i in range(5))
torch.save(sd, "whole.pt")
names = list(sd)
parts = [names[:3], names[3:]]
wm = {}
for k, part in enumerate(parts):
    f = "pytorch_model-%05d-of-00002.bin" % (k + 1)
    torch.save(collections.OrderedDict((n, sd[n]) for n in part), f)
    wm.update({n: f for n in part})
json.dump({"metadata": {"total_size": 5 * 48}, "weight_map": wm},
          open("pytorch_model.bin.index.json", "w"), indent=2, sort_keys=True)
PY
run ckpt-read pytorch_model.bin.index.json
expect_status 0
expect_out '^2 PyTorch shards listed in pytorch_model.bin.index.json: pytorch_model-00001-of-00002.bin pytorch_model-00002-of-00002.bin$'
expect_out '^5 variables'
run ckpt-diff --bitwise whole.pt pytorch_model.bin.index.json
expect_status 0
run ckpt-average -o avg.bin.index.json pytorch_model.bin.index.json pytorch_model.bin.index.json
expect_status 0
expect_quiet_stderr
[ -f avg-00001-of-00002.bin ] && [ -f avg-00002-of-00002.bin ] || fail "shards not named as transformers names them"
"$PY" - <<'PY' || fail "the set written"
import json, torch
m = json.load(open("avg.bin.index.json"))
assert m["metadata"]["total_size"] == 5 * 48, m
whole = torch.load("whole.pt")
assert sorted(m["weight_map"]) == sorted(whole), sorted(m["weight_map"])
for name, f in m["weight_map"].items():
    t = torch.load(f, weights_only=True)[name]
    assert torch.equal(t, whole[name]), name
assert open("avg.bin.index.json").read().endswith("}\n")
PY
run ckpt-average -o one.safetensors pytorch_model.bin.index.json
expect_status 0
run ckpt-diff --bitwise one.safetensors whole.pt
expect_status 0
run ckpt-merge -q --split 3 -o split.bin.index.json whole.pt
expect_status 0
[ -f split-00003-of-00003.bin ] || fail "no third shard"
run ckpt-diff --bitwise split.bin.index.json whole.pt
expect_status 0
run ckpt-merge --split 2 -o 'n%d.pt' whole.pt
expect_error ckpt-merge "^ckpt-merge: n0.pt: keeps no shard record \(no texts in its format\): split into a set instead"
expect_no_file n0.pt
expect_no_file n1.pt
run ckpt-average -o x.bin.index.json whole.pt
expect_error ckpt-average "^ckpt-average: x.bin.index.json: a .bin.index.json output needs a sharded PyTorch base"
expect_no_file x.bin.index.json
