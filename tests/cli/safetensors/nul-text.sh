# Text with NUL bytes keeps every byte: a safetensors __metadata__ value
# holding \u0000 (valid JSON, any string is allowed: it was "not valid
# JSON") is read and carried into safetensors and HDF5 outputs (there a
# fixed-length string of its bytes) and back; an HDF5 fixed-length string
# attribute holding a NUL (it was cut at the NUL) goes into HDF5 and into
# safetensors metadata whole.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import json, struct, numpy as np, h5py
hdr = {"__metadata__": {"k": "a\u0000b", "format": "pt"},
       "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
h = json.dumps(hdr).encode()
h += b" " * ((8 - len(h) % 8) % 8)
open("nul.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + np.array([1, 2], "f4").tobytes())
with h5py.File("fixnul.h5", "w") as f:
    f["w"] = np.arange(3, dtype="f4")
    f.attrs.create("fs", np.bytes_(b"ab\0cd"), dtype=h5py.string_dtype("ascii", 5))
    f["w"].attrs.create("fs", np.bytes_(b"x\0y"), dtype=h5py.string_dtype("ascii", 3))
PY
run ckpt-read --json nul.safetensors
expect_status 0
for o in o.safetensors o.h5; do
	run ckpt-average -o $o nul.safetensors nul.safetensors
	expect_status 0
done
run ckpt-average -o back.safetensors o.h5 o.h5
expect_status 0
run ckpt-average -o fix.h5 fixnul.h5 fixnul.h5
expect_status 0
run ckpt-average -o fix.safetensors fixnul.h5 fixnul.h5
expect_status 0
"$PY" - <<'PY' || fail "bytes lost"
import json, struct, h5py, numpy as np
def meta(p):
    b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    return json.loads(b[8:8 + n]).get("__metadata__")
def raw(attrs, name):
    v = attrs[name]
    return v.encode() if isinstance(v, str) else bytes(v)
assert meta("o.safetensors") == {"k": "a\0b", "format": "pt"}, meta("o.safetensors")
assert meta("back.safetensors") == {"k": "a\0b", "format": "pt"}, meta("back.safetensors")
f = h5py.File("o.h5")
assert raw(f.attrs, "k") == b"a\0b", raw(f.attrs, "k")
f = h5py.File("fix.h5")
assert raw(f.attrs, "fs") == b"ab\0cd" and raw(f["w"].attrs, "fs") == b"x\0y"
assert meta("fix.safetensors") == {"fs": "ab\0cd"}, meta("fix.safetensors")
PY
