# A checkpoint given as a pipe by name (bash's <(cat f), a FIFO) is read
# as standard input is, into memory, safetensors and HDF5 alike (it was
# "empty file, not a checkpoint"); two pipes at once; a foreign format on
# a pipe is named.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np, json, struct
with h5py.File("a.h5", "w") as f:
    f["w"] = np.arange(6, dtype="f4").reshape(2, 3)
h = json.dumps({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}).encode()
h += b" " * ((8 - len(h) % 8) % 8)
open("a.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + np.arange(6, dtype="f4").tobytes())
open("m.gguf", "wb").write(b"GGUF" + b"\3\0\0\0" + b"\0" * 16)
PY
for f in a.h5 a.safetensors; do
	rm -f p1 p2
	mkfifo p1 p2 || skip "no mkfifo"
	timeout 60 sh -c "cat $f >p1" &
	timeout 60 sh -c "cat $f >p2" &
	run ckpt-average -o out-$f p1 p2
	wait
	expect_status 0
	run ckpt-diff out-$f $f
	expect_status 0
done
rm -f p1
mkfifo p1
timeout 60 sh -c "cat m.gguf >p1" &
run ckpt-read p1
wait
expect_error ckpt-read '^ckpt-read: p1: a GGUF model'
