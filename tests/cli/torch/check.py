"""check.py FILE.pt OUT.safetensors [STRIP] - OUT holds every tensor of
FILE.pt as torch.load gives it (named by its path in the pickled structure,
levels joined by '/', STRIP removed from the front), with its dtype, shape
and bytes; a tensor that views the same elements as one before it (tied
weights) only under the first name; nothing else.  Exit 1 naming the first
difference."""
import json
import struct
import sys

import torch

DT = {torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32",
      torch.float64: "F64", torch.int8: "I8", torch.int16: "I16", torch.int32: "I32",
      torch.int64: "I64", torch.uint8: "U8", torch.bool: "BOOL"}


def tensors(obj, path, out, seen):
    if isinstance(obj, torch.Tensor):
        key = (obj.storage().data_ptr(), obj.storage_offset(), tuple(obj.shape),
               obj.stride(), obj.dtype)
        if key not in seen:
            seen.add(key)
            out[path or "tensor"] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            tensors(v, (path + "/" if path else "") + str(k), out, seen)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            tensors(v, (path + "/" if path else "") + str(i), out, seen)


want = {}
tensors(torch.load(sys.argv[1]), "", want, set())
strip = sys.argv[3] if len(sys.argv) > 3 else ""
want = {k[len(strip):]: v for k, v in want.items() if k.startswith(strip)}
raw = open(sys.argv[2], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
header.pop("__metadata__", None)
if sorted(header) != sorted(want):
    sys.exit("names differ: %s vs %s" % (sorted(header), sorted(want)))
for name, t in want.items():
    h = header[name]
    b, e = h["data_offsets"]
    t = t.detach().contiguous()
    data = t.view(torch.int16).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
    if h["dtype"] != DT[t.dtype] or h["shape"] != list(t.shape) or raw[8 + n + b:8 + n + e] != data:
        sys.exit("%s: %s %s differs from %s %s" % (name, h["dtype"], h["shape"], t.dtype,
                                                   list(t.shape)))
