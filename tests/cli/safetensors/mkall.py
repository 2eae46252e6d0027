"""mkall.py DIR - all.safetensors: a tensor of every dtype the format has,
empty and 0-d tensors, names with dots, in an order that is not the names'
order, with __metadata__; f8.safetensors: the two float8 types.  Values
from a fixed seed, special values included."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st  # noqa: E402

os.chdir(sys.argv[1])
rng = np.random.default_rng(7)
f = rng.standard_normal(24)
f[:4] = [0.0, -0.0, np.inf, np.nan]
ints = rng.integers(-100, 100, 24)
st.write("all.safetensors", [
    ("model.z.weight", f.astype("f4").reshape(2, 3, 4)),
    ("model.layers.0.bias", f[:6].astype("f2")),
    ("model.a.f64", f.astype("f8").reshape(4, 6)),
    ("bf16", (f.astype("f4").view("u4") >> 16).astype("u2")[:8], "BF16"),
    ("i64", ints.astype("i8")),
    ("i32", ints.astype("i4").reshape(6, 4)),
    ("i16", ints.astype("i2")[:5]),
    ("i8", ints.astype("i1")[:7]),
    ("u8", np.abs(ints).astype("u1")[:9]),
    ("u16", np.abs(ints).astype("u2")[:3]),
    ("u32", np.abs(ints).astype("u4")[:3]),
    ("u64", np.array([0, 1, 2**64 - 1], "u8")),
    ("mask", ints[:5] > 0),
    ("scalar", np.float32(2.5)),
    ("empty", np.zeros((0, 3), "f4")),
    ("empty.i32", np.zeros(0, "i4")),
], metadata={"format": "pt", "step": "1200"})
st.write("f8.safetensors", [
    ("e4m3", np.array([0x38, 0xb8, 0x7e, 0x01], "u1"), "F8_E4M3"),
    ("e5m2", np.array([0x3c, 0xbc, 0x7b, 0x01], "u1"), "F8_E5M2"),
])
