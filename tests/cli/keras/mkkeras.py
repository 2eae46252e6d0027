"""mkkeras.py DIR NAME SEED - Keras 3 files as Keras writes them, made with
h5py and zipfile (Keras itself is not in Debian):

  NAME.keras            zip of metadata.json, config.json, model.weights.h5
                        and assets/vocab.txt, members stored (ZIP_STORED)
                        in that order, as keras.saving.save_model writes
  NAME.weights.h5       the same weights, bare
  NAME.weights.json     a sharded set as model.save_weights(...,
                        max_shard_size=...) writes it (ShardedH5IOStore):
                        NAME_00000.weights.h5, NAME_00001.weights.h5; the
                        group layers/dense/vars continues in the second
                        shard, and the map names the first shard it is in
                        (with a fourth argument "lists", as Keras 3.11 on:
                        the list of both).

Layout: layers/<name>/vars/<i> (integer names), a scalar string attribute
"name" on each vars group, optimizer/vars/<i> with the iteration count
(int64 scalar) and the learning rate (float32 scalar) first.  SEED makes
the values."""
import json
import os
import sys
import zipfile

import h5py
import numpy as np

d, name, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
# "lists": the map as Keras 3.11 on writes it, a layer that straddles
# shards mapped to the list of its shards
lists = len(sys.argv) > 4 and sys.argv[4] == "lists"
os.chdir(d)
rng = np.random.default_rng(seed)

# (group, [arrays]) in the order Keras visits them
LAYERS = [
    ("layers/dense", [rng.standard_normal((4, 3)).astype("f4"),
                      rng.standard_normal(3).astype("f4")]),
    ("layers/dense_1", [rng.standard_normal((3, 2)).astype("f4"),
                        rng.standard_normal(2).astype("f4")]),
    ("optimizer", [np.int64(seed * 10), np.float32(0.001)] +
     [rng.standard_normal(s).astype("f4") for s in [(4, 3), (3,), (3, 2), (2,)] * 2]),
]


def write_group(f, path, arrays, first):
    g = f.require_group(path).require_group("vars")
    if "name" not in g.attrs:
        g.attrs["name"] = path.split("/")[-1]
    for i, a in enumerate(arrays):
        g.create_dataset(str(first + i), data=a)


with h5py.File(name + ".weights.h5", "w") as f:
    for path, arrays in LAYERS:
        write_group(f, path, arrays, 0)

with open(name + ".weights.h5", "rb") as fp:
    weights = fp.read()
config = json.dumps({"module": "keras", "class_name": "Sequential",
                     "config": {"name": name, "layers": ["dense", "dense_1"]}})
meta = json.dumps({"keras_version": "3.10.0", "date_saved": "2026-11-23@00:00:00"})
with zipfile.ZipFile(name + ".keras", "w") as z:
    z.writestr("metadata.json", meta)
    z.writestr("config.json", config)
    z.writestr("model.weights.h5", weights)
    z.writestr("assets/vocab.txt", "a\nb\nc\n" * (seed + 1))

# The sharded set: layers/dense/vars/0 alone in the first shard, the rest
# (layers/dense/vars/1 first) in the second.
shards = [name + "_00000.weights.h5", name + "_00001.weights.h5"]
wmap, total = {}, 0
with h5py.File(shards[0], "w") as f0, h5py.File(shards[1], "w") as f1:
    for path, arrays in LAYERS:
        for i, a in enumerate(arrays):
            f = f0 if path == "layers/dense" and i == 0 else f1
            write_group(f, path, [a], i)
            key, shard = "/" + path + "/vars", os.path.basename(f.filename)
            if lists and key in wmap and shard not in wmap[key]:
                wmap[key] = (wmap[key] if isinstance(wmap[key], list) else [wmap[key]]) + [shard]
            wmap.setdefault(key, shard)
            total += np.asarray(a).nbytes
with open(name + ".weights.json", "w") as fp:
    json.dump({"metadata": {"total_size": float(total)}, "weight_map": wmap}, fp, indent=4)
