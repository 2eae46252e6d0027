"""mkbad.py DIR - safetensors files that break one rule of the format each,
written as raw bytes (st.write only writes valid files).  Prints a line
per file: NAME<TAB>what ckpt's message must say (a grep -E pattern)."""
import json
import os
import struct
import sys

os.chdir(sys.argv[1])
CASES = []


def raw(name, header_text, data=b"", length=None, expect=""):
    if isinstance(header_text, (dict, list)):
        header_text = json.dumps(header_text)
    text = header_text.encode() if isinstance(header_text, str) else header_text
    n = len(text) if length is None else length
    with open(name, "wb") as f:
        f.write(struct.pack("<Q", n) + text + data)
    CASES.append((name, expect))


def t(dtype, shape, b, e):
    return {"dtype": dtype, "shape": shape, "data_offsets": [b, e]}


raw("past-end.safetensors", '{"a":{}}', length=4096,
    expect="header \\(4096 bytes\\) runs past the end")
raw("huge.safetensors", '{"a":{}}', length=100 * 1000 * 1000 + 1,
    expect="header of 100000001 bytes: more than the format allows")
raw("notjson.safetensors", '{"a": {"dtype": "F32",', expect="header is not valid JSON")
raw("array.safetensors", '[1, 2]', expect="not an HDF5 or safetensors file")
raw("number.safetensors", '{"a": 1} 7', expect="header is not valid JSON")
raw("dupkey.safetensors",
    '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
    '"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', b"\0" * 8,
    expect="two variables are called 'a'")
raw("overlap.safetensors", {"a": t("F32", [2], 0, 8), "b": t("F32", [2], 4, 12)}, b"\0" * 12,
    expect="tensors 'a' and 'b' overlap")
raw("gap.safetensors", {"a": t("F32", [1], 0, 4), "b": t("F32", [1], 8, 12)}, b"\0" * 12,
    expect="4 bytes between tensors 'a' and 'b'")
raw("lead.safetensors", {"a": t("F32", [1], 4, 8)}, b"\0" * 8,
    expect="the first 4 bytes of the data belong")
raw("tail.safetensors", {"a": t("F32", [1], 0, 4)}, b"\0" * 8,
    expect="the last 4 bytes of the file belong to no tensor")
raw("outside.safetensors", {"a": t("F32", [4], 0, 16)}, b"\0" * 8,
    expect="tensor 'a': data_offsets \\[0, 16\\] .*past the end")
raw("size.safetensors", {"a": t("F32", [3], 0, 8)}, b"\0" * 8,
    expect="tensor 'a': shape \\[3\\] of float32 needs 12 bytes; data_offsets hold 8")
raw("dtype.safetensors", {"a": t("F33", [1], 0, 4)}, b"\0" * 4,
    expect="tensor 'a': unknown dtype \"F33\"")
raw("nodtype.safetensors", {"a": {"shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4,
    expect="tensor 'a': no \"dtype\" string")
raw("shape.safetensors", {"a": t("F32", [-1], 0, 4)}, b"\0" * 4,
    expect="tensor 'a': shape holds something other than")
raw("overflow.safetensors", {"a": t("U8", [2**40, 2**40], 0, 4)}, b"\0" * 4,
    expect="tensor 'a': its shape overflows")
raw("offsets.safetensors", {"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}},
    b"\0" * 4, expect="tensor 'a': data_offsets is not \\[begin, end\\]")
raw("notobject.safetensors", {"a": [1, 2]}, expect="tensor 'a': not an object")
raw("meta.safetensors", {"__metadata__": {"k": 1}}, expect="__metadata__: \"k\" is not a string")
raw("truncated.safetensors", {"a": t("F32", [4], 0, 16)}, b"\0" * 16)
with open("truncated.safetensors", "r+b") as f:  # cut inside the data
    f.truncate(os.path.getsize("truncated.safetensors") - 6)
CASES[-1] = ("truncated.safetensors", "tensor 'a': data_offsets \\[0, 16\\] .*past the end")
for name, expect in CASES:
    print(f"{name}\t{expect}")
