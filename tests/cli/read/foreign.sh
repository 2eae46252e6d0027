# Files of the formats ckpt does not read (yet) say what they are, in one
# line: TensorFlow's files that are no bundle (a data shard, a SavedModel
# graph, an .index without the table's footer), TensorFlow Lite, NumPy .npy
# and .npz, a pickle torch.save did not write, GGUF, ONNX; a tar holding a
# PyTorch file's members; also from standard input.  Made here to the shape
# of the originals; TensorFlow's real files when ../shared is there.  (A
# damaged TensorFlow table is read, and fails: tf/errors; PyTorch files are
# read: torch/.)
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import io, pickle, struct, zipfile, numpy as np
# a tar of a torch.save zip's members, unpacked
import tarfile
with tarfile.open("members.tar", "w") as t:
    for name, data in (("archive/data.pkl", pickle.dumps({"w": 1}, protocol=2)),
                       ("archive/byteorder", b"little")):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
pickle.dump({"w": 1}, open("plain.pkl", "wb"), protocol=4)
np.save("a.npy", np.arange(4, dtype="f4"))
np.savez("a.npz", w=np.arange(4, dtype="f4"))
open("m.tflite", "wb").write(struct.pack("<I", 28) + b"TFL3" + b"\0" * 40)
open("m.gguf", "wb").write(b"GGUF" + struct.pack("<IQQ", 3, 0, 0))
# ModelProto: ir_version 8, producer_name, graph
open("m.onnx.bin", "wb").write(bytes([0x08, 0x08, 0x12, 0x07]) + b"pytorch" + bytes([0x3a, 0x00]))
# named like a bundle's .index, without the 48-byte footer a table ends in
open("ck.index", "wb").write(b"\0" * 48)
open("ck.data-00000-of-00001", "wb").write(b"\0" * 64)
PY
check() { # FILE PATTERN
	run ckpt-read "$1"
	expect_error ckpt-read "^ckpt-read: $1: $2; ckpt reads HDF5 \(h5py, Keras\), \.keras archives, safetensors, TensorFlow bundles and PyTorch files$"
}
check members.tar "an archive holding a PyTorch file's members \\(ckpt reads the PyTorch file itself\\)"
check plain.pkl 'a Python pickle, not one torch.save wrote'
check a.npy 'a NumPy .npy array'
check a.npz 'a NumPy .npz archive'
check m.tflite 'a TensorFlow Lite model'
check m.gguf 'a GGUF model \(llama.cpp\)'
check m.onnx.bin 'an ONNX model'
check ck.index 'named like a TensorFlow checkpoint index, but without the table footer.*'
check ck.data-00000-of-00001 'a TensorFlow checkpoint data shard.*'
run sh -c 'ckpt-read - < m.tflite'
expect_error ckpt-read '^ckpt-read: \(stdin\): a TensorFlow Lite model;'
run ckpt-average -o out.h5 members.tar members.tar
expect_error ckpt-average "members.tar: an archive holding a PyTorch file's members"
expect_no_file out.h5
if [ -d "$REAL/tf" ]; then
	for d in "$REAL"/tf/*/; do
		d=${d%/}
		run ckpt-read "$d/saved_model.pb"
		expect_error ckpt-read 'a TensorFlow SavedModel graph'
	done
fi
