"""mknew.py OUT - a PyTorch file as current torch writes it, made by hand
(torch 1.13 cannot make it): the records of torch 2.x (.format_version,
.storage_alignment, byteorder, .data/serialization_id), float8 tensors
(Float8_e4m3fnStorage, Float8_e5m2Storage), a tensor through
torch._tensor._rebuild_from_type_v2, a Parameter through
_rebuild_parameter_with_state, an UntypedStorage of bytes, protocol 4
opcodes (FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL).  Values:

  e4m3   float8_e4m3fn [4]  bytes 38 40 b8 7f   (1, 2, -1, NaN)
  e5m2   float8_e5m2   [3]  bytes 3c 40 7c      (1, 2, inf)
  typed  float32       [2]  1.5, -2.5           (_rebuild_from_type_v2)
  param  float32       [2]  0.25, 4             (_rebuild_parameter_with_state)
  raw    uint8         [3]  1 2 3               (an UntypedStorage)
"""
import struct
import sys
import zipfile


class P:
    """protocol 4 opcodes, by hand"""
    def __init__(self):
        self.b = bytearray(b"\x80\x04")

    def op(self, c):
        self.b += c
        return self

    def str(self, s):
        s = s.encode()
        return self.op(b"\x8c" + bytes([len(s)]) + s) if len(s) < 256 else \
            self.op(b"X" + struct.pack("<I", len(s)) + s)

    def int(self, v):
        return self.op(b"K" + bytes([v])) if 0 <= v < 256 else self.op(b"J" + struct.pack("<i", v))

    def glob(self, mod, name):
        return self.str(mod).str(name).op(b"\x93\x94")   # STACK_GLOBAL, MEMOIZE

    def ints(self, *v):
        self.op(b"(")
        for x in v:
            self.int(x)
        return self.op(b"t")

    def odict(self):
        return self.glob("collections", "OrderedDict").op(b")R")

    def tensor(self, cls, key, numel, size, stride, offset=0):
        self.glob("torch._utils", "_rebuild_tensor_v2").op(b"(")
        self.op(b"(").str("storage").glob("torch", cls).str(key).str("cpu").int(numel)
        self.op(b"tQ").int(offset).ints(*size).ints(*stride).op(b"\x89")   # NEWFALSE
        return self.odict().op(b"tR")


p = P()
p.odict().op(b"\x94(")                                   # SETITEMS follow
p.str("e4m3").tensor("Float8_e4m3fnStorage", "0", 4, [4], [1])
p.str("e5m2").tensor("Float8_e5m2Storage", "1", 3, [3], [1])
p.str("typed").glob("torch._tensor", "_rebuild_from_type_v2").op(b"(")
p.glob("torch._utils", "_rebuild_tensor_v2").glob("torch", "Tensor").op(b"(")  # func, type
p.op(b"(").str("storage").glob("torch", "FloatStorage").str("2").str("cpu").int(2)
p.op(b"tQ").int(0).ints(2).ints(1).op(b"\x89").odict().op(b"t")   # args
p.op(b"}tR")                                             # state {}
p.str("param").glob("torch._utils", "_rebuild_parameter_with_state").op(b"(")
p.tensor("FloatStorage", "3", 2, [2], [1]).op(b"\x88").odict().op(b"}tR")
p.str("raw").tensor("UntypedStorage", "4", 3, [3], [1])
p.op(b"u.")
data = {"0": bytes([0x38, 0x40, 0xb8, 0x7f]), "1": bytes([0x3c, 0x40, 0x7c]),
        "2": struct.pack("<2f", 1.5, -2.5), "3": struct.pack("<2f", 0.25, 4.0),
        "4": bytes([1, 2, 3])}
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", bytes(p.b))
    z.writestr("archive/.format_version", "1")
    z.writestr("archive/.storage_alignment", "64")
    z.writestr("archive/byteorder", "little")
    for k, v in data.items():
        z.writestr("archive/data/" + k, v)
    z.writestr("archive/version", "3\n")
    z.writestr("archive/.data/serialization_id", "0123456789012345678901234567890123456789")
