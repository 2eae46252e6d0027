# A full disk while ckpt-merge writes a Keras set names the output's shard
# (it named the input shard whose variable was being copied), exit 2,
# nothing left on the disk; at every size from the structure to the last
# variable.
need_h5py
mkdir -p "$T/fs"
mount -t tmpfs -o size=16k tmpfs "$T/fs" 2>/dev/null || skip "cannot mount a small tmpfs here"
umount "$T/fs"
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np, json
shards = ["a_00000.weights.h5", "a_00001.weights.h5"]
wmap = {}
with h5py.File(shards[0], "w") as f0, h5py.File(shards[1], "w") as f1:
    for i in range(4):
        f = f0 if i < 2 else f1
        f.require_group("layers/d%d/vars" % i)["0"] = np.random.rand(200000).astype("f4")
        wmap["/layers/d%d/vars" % i] = shards[i // 2]
json.dump({"metadata": {"total_size": 3200000}, "weight_map": wmap}, open("a.weights.json", "w"))
with h5py.File("src.h5", "w") as f:
    f["layers/d0/vars/0"] = np.zeros(200000, "f4")
PY
for size in 16k 800k 1600k; do
	mount -t tmpfs -o size=$size tmpfs "$T/fs" || fail "mount"
	run ckpt-merge -o "$T/fs/b.weights.json" a.weights.json src.h5
	left=$(ls -A "$T/fs")
	umount "$T/fs"
	expect_error ckpt-merge "^ckpt-merge: $T/fs/b_0000[01].weights.h5: .*No space left on device"
	[ -z "$left" ] || fail "left on the disk: $left"
done
