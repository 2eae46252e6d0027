# Files of the formats ckpt does not read (yet) say what they are, in one
# line: a PyTorch zip (*/data.pkl; it was "the archive holds no
# checkpoint") and legacy file, TensorFlow's files that are no bundle (a
# data shard, a SavedModel graph, an .index without the table's footer),
# TensorFlow Lite, NumPy .npy and .npz, GGUF, ONNX; also from standard
# input.  Made here to the shape of the originals (with torch itself where
# it is installed); TensorFlow's real files when ../shared is there.  (A
# damaged TensorFlow table is read, and fails: tf/errors.)
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import io, pickle, struct, zipfile, numpy as np
# torch.save (1.6+): a zip whose members sit under one directory
with zipfile.ZipFile("model.pt", "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", pickle.dumps({"w": 1}, protocol=2))
    z.writestr("archive/byteorder", "little")
    z.writestr("archive/data/0", b"\0" * 16)
    z.writestr("archive/version", "3\n")
# torch.save before 1.6: pickled magic number, protocol version, sys info
with open("legacy.pt", "wb") as f:
    pickle.dump(0x1950a86a20f9469cfc6c, f, protocol=2)
    pickle.dump(1001, f, protocol=2)
np.save("a.npy", np.arange(4, dtype="f4"))
np.savez("a.npz", w=np.arange(4, dtype="f4"))
open("m.tflite", "wb").write(struct.pack("<I", 28) + b"TFL3" + b"\0" * 40)
open("m.gguf", "wb").write(b"GGUF" + struct.pack("<IQQ", 3, 0, 0))
# ModelProto: ir_version 8, producer_name, graph
open("m.onnx.bin", "wb").write(bytes([0x08, 0x08, 0x12, 0x07]) + b"pytorch" + bytes([0x3a, 0x00]))
# named like a bundle's .index, without the 48-byte footer a table ends in
open("ck.index", "wb").write(b"\0" * 48)
open("ck.data-00000-of-00001", "wb").write(b"\0" * 64)
try:
    import torch
    torch.save({"w": torch.zeros(3)}, "real.pt")
    torch.save({"w": torch.zeros(3)}, "real-legacy.pt", _use_new_zipfile_serialization=False)
except ImportError:
    pass
PY
check() { # FILE PATTERN
	run ckpt-read "$1"
	expect_error ckpt-read "^ckpt-read: $1: $2; ckpt reads HDF5 \(h5py, Keras\), \.keras archives, safetensors and TensorFlow bundles$"
}
check model.pt 'a PyTorch checkpoint \(a torch.save zip\)'
check legacy.pt 'a legacy PyTorch checkpoint \(torch.save before 1.6\)'
check a.npy 'a NumPy .npy array'
check a.npz 'a NumPy .npz archive'
check m.tflite 'a TensorFlow Lite model'
check m.gguf 'a GGUF model \(llama.cpp\)'
check m.onnx.bin 'an ONNX model'
check ck.index 'named like a TensorFlow checkpoint index, but without the table footer.*'
check ck.data-00000-of-00001 'a TensorFlow checkpoint data shard.*'
run sh -c 'ckpt-read - < m.tflite'
expect_error ckpt-read '^ckpt-read: \(stdin\): a TensorFlow Lite model;'
run ckpt-average -o out.h5 model.pt model.pt
expect_error ckpt-average 'model.pt: a PyTorch checkpoint'
expect_no_file out.h5
if [ -f real.pt ]; then
	check real.pt 'a PyTorch checkpoint \(a torch.save zip\)'
	check real-legacy.pt 'a legacy PyTorch checkpoint \(torch.save before 1.6\)'
fi
if [ -d "$REAL/tf" ]; then
	for d in "$REAL"/tf/*/; do
		d=${d%/}
		run ckpt-read "$d/saved_model.pb"
		expect_error ckpt-read 'a TensorFlow SavedModel graph'
	done
fi
