"""st.py - an independent reader and writer of the safetensors format, from
its public specification (no safetensors package exists in Debian):

    8 bytes: N, little-endian unsigned; N bytes: a JSON object mapping each
    tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (and an
    optional "__metadata__", string to string); then the data, little-
    endian, C order, offsets relative to the end of the header.

write(path, tensors, metadata=None, pad=8): tensors is a list of (name,
array) or (name, array, dtype) in data order; an array of uint16 bits can
be written as "BF16", one of uint8 bits as "F8_E4M3"/"F8_E5M2".  The header
is padded with spaces to a multiple of pad bytes, as the reference writer
does.  read(path) -> (metadata, [(name, dtype, shape, bytes)]) in data
order, checking the layout rules."""
import json
import struct

import numpy as np

DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8",
          "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1", "U16": "<u2",
          "U32": "<u4", "U64": "<u8", "BOOL": "?", "F8_E4M3": "u1", "F8_E5M2": "u1"}
NAMES = {"float64": "F64", "float32": "F32", "float16": "F16", "int64": "I64",
         "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8", "uint16": "U16",
         "uint32": "U32", "uint64": "U64", "bool": "BOOL"}


def header_bytes(header, pad):
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad > 1:
        text += b" " * ((-len(text) - 8) % pad)
    return text


def write(path, tensors, metadata=None, pad=8):
    header, blobs, at = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for t in tensors:
        name, a = t[0], np.asarray(t[1])
        dt = t[2] if len(t) > 2 else NAMES[a.dtype.name]
        b = a.astype(DTYPES[dt]).tobytes()
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = header_bytes(header, pad)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", None)
    body = data[8 + n:]
    items = sorted(header.items(), key=lambda kv: tuple(kv[1]["data_offsets"]))
    at, out = 0, []
    for name, t in items:
        b, e = t["data_offsets"]
        assert b == at, (name, b, at)
        size = int(np.prod(t["shape"], dtype=np.int64)) * np.dtype(DTYPES[t["dtype"]]).itemsize
        assert e - b == size, name
        out.append((name, t["dtype"], tuple(t["shape"]), body[b:e]))
        at = e
    assert at == len(body)
    return meta, out


def array(dtype, shape, raw):
    return np.frombuffer(raw, dtype=DTYPES[dtype]).reshape(shape)


def f8_value(bits, dtype):
    """The value of one float8 pattern, from the OCP definitions: E4M3 (bias
    7, no infinity, S.1111.111 NaN) and E5M2 (bias 15, IEEE-like)."""
    e_bits, m_bits, bias = (4, 3, 7) if dtype == "F8_E4M3" else (5, 2, 15)
    sign = -1.0 if bits & 0x80 else 1.0
    e, m = (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    top = (1 << e_bits) - 1
    if dtype == "F8_E4M3" and e == top and m == 7:
        return float("nan")
    if dtype == "F8_E5M2" and e == top:
        return sign * float("inf") if m == 0 else float("nan")
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - m_bits)
    return sign * (m + (1 << m_bits)) * 2.0 ** (e - bias - m_bits)
