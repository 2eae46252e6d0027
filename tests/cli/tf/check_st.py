"""check_st.py OUT.safetensors EXPECT.npz - every array of EXPECT is in OUT
with its dtype and shape and the same bytes (so a conversion kept every
value bitwise); OUT holds nothing else.  Exit 1 naming the first
difference."""
import json
import struct
import sys

import numpy as np

TYPES = {"F32": "<f4", "F64": "<f8", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
         "I8": "i1", "U8": "u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "?"}
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
header.pop("__metadata__", None)
want = np.load(sys.argv[2])
if sorted(header) != sorted(want.files):
    sys.exit("names differ: %s vs %s" % (sorted(header), sorted(want.files)))
for name in want.files:
    t, a = header[name], want[name]
    b, e = t["data_offsets"]
    got = np.frombuffer(raw[8 + n + b:8 + n + e], dtype=TYPES[t["dtype"]]).reshape(t["shape"])
    if got.dtype != a.dtype.newbyteorder("<") or got.shape != a.shape or \
            got.tobytes() != a.astype(a.dtype.newbyteorder("<")).tobytes():
        sys.exit("%s: %s %s differs from %s %s" % (name, got.dtype, got.shape, a.dtype, a.shape))
