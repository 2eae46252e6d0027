"""scalars.py N st|h5 DIR - N scalar float32 variables v0000000..., as one
safetensors file (DIR/sN.safetensors) or one HDF5 file (DIR/hN.h5, by
h5py): the per-variable cost of listing and averaging (make bench)."""
import os, sys, json, struct, h5py, numpy as np
n = int(sys.argv[1])
os.chdir(sys.argv[3])
if sys.argv[2] == "st":
    hdr = {}
    for i in range(n):
        hdr["v%07d" % i] = {"dtype": "F32", "shape": [], "data_offsets": [4 * i, 4 * i + 4]}
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open("s%d.safetensors" % n, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        f.write(np.arange(n, dtype="f4").tobytes())
else:
    with h5py.File("h%d.h5" % n, "w", libver=("earliest", "v110")) as f:
        for i in range(n):
            f.create_dataset("v%07d" % i, data=np.float32(i))
