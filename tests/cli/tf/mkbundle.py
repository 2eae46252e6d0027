"""mkbundle.py PREFIX SPEC... - write a TensorFlow tensor bundle as
TensorFlow's BundleWriter does (PREFIX.index, a LevelDB table; the values
in PREFIX.data-NNNNN-of-NNNNN), independently of ckpt: the tables, the
protocol buffers and CRC-32C written here in Python from the formats'
definitions (tensorflow/core/util/tensor_bundle, core/lib/io/table).

SPEC is NAME=DTYPE:SHAPE:SEED (a numpy dtype name, a shape like 3x4 or
"" for a scalar; values drawn from SEED), or one of the options:
  --shards N        spread the tensors over N data files (round robin)
  --big-endian      mark the header big-endian
  --slices NAME     give NAME a slices field (a partitioned variable)
  --no-header       leave out the header entry
  --string NAME     a scalar string tensor NAME (TF's encoding, its CRC)
  --strings NAME    a string tensor NAME of 3 elements
  --raw NAME=DT     a tensor of DataType number DT (complex64 8, variant 21,
                    ...) of 16 bytes, its CRC theirs
  --block-size N    table blocks of about N bytes (default 4096)
and --npz FILE writes the arrays to FILE (np.savez), for the tests to
compare with what ckpt made of them."""
import struct
import sys

import numpy as np

POLY = 0x82F63B78
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data, crc=0):
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def mask(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire, payload):
    tag = varint(number << 3 | wire)
    if wire == 0:
        return tag + varint(payload)
    if wire == 5:
        return tag + struct.pack("<I", payload)
    return tag + varint(len(payload)) + payload


DTYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
          "int64": 9, "bool": 10, "uint16": 17, "float16": 19, "uint32": 22, "uint64": 23}


def shape_proto(shape):
    return b"".join(field(2, 2, field(1, 0, d) if d else b"") for d in shape)


def entry(dtype, shape, shard, offset, size, crc, sliced=False):
    e = field(1, 0, dtype) + field(2, 2, shape_proto(shape))
    if shard:
        e += field(3, 0, shard)
    if offset:
        e += field(4, 0, offset)
    if size:
        e += field(5, 0, size)
    e += field(6, 5, crc)
    if sliced:
        e += field(7, 2, field(1, 2, b""))
    return e


def block(entries, restart_interval=16):
    out, restarts, prev = bytearray(), [], b""
    for i, (k, v) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            while shared < min(len(k), len(prev)) and k[shared] == prev[shared]:
                shared += 1
        out += varint(shared) + varint(len(k) - shared) + varint(len(v)) + k[shared:] + v
        prev = k
    for r in restarts or [0]:
        out += struct.pack("<I", r)
    out += struct.pack("<I", len(restarts or [0]))
    return bytes(out)


def table(entries, block_size):
    out, index, pending = bytearray(), [], []

    def flush():
        contents = block(pending)
        handle = varint(len(out)) + varint(len(contents))
        out.extend(contents + b"\0" + struct.pack("<I", mask(crc32c(contents + b"\0"))))
        index.append((pending[-1][0], handle))
        pending.clear()

    for k, v in entries:
        pending.append((k, v))
        if sum(len(a) + len(b) for a, b in pending) >= block_size:
            flush()
    if pending:
        flush()
    handles = []
    for contents in (block([]), block(index)):
        handles.append(varint(len(out)) + varint(len(contents)))
        out.extend(contents + b"\0" + struct.pack("<I", mask(crc32c(contents + b"\0"))))
    footer = handles[0] + handles[1]
    footer += b"\0" * (40 - len(footer)) + struct.pack("<Q", 0xDB4775248B80FB57)
    return bytes(out + footer)


def string_tensor(*values):
    """TF's encoding of a string tensor and its CRC (tensor_bundle.cc,
    WriteStringTensor): the lengths as varints, the masked CRC of the
    lengths (each as a uint32), the bytes; the tensor's CRC runs over the
    lengths as uint32s, that masked CRC and the bytes."""
    lengths, crc = b"", 0
    for v in values:
        lengths += varint(len(v))
        crc = crc32c(struct.pack("<I", len(v)), crc)
    body = lengths + struct.pack("<I", mask(crc))
    crc = crc32c(struct.pack("<I", mask(crc)), crc)
    for v in values:
        crc = crc32c(v, crc)
    return body + b"".join(values), crc


def main(argv):
    prefix, specs = argv[1], argv[2:]
    shards, big, sliced, header, strings, bsize, npz = 1, False, set(), True, [], 4096, None
    multi, raws = [], []
    tensors = []
    i = 0
    while i < len(specs):
        a = specs[i]
        if a == "--shards":
            shards = int(specs[i + 1]); i += 1
        elif a == "--big-endian":
            big = True
        elif a == "--slices":
            sliced.add(specs[i + 1]); i += 1
        elif a == "--no-header":
            header = False
        elif a == "--string":
            strings.append(specs[i + 1]); i += 1
        elif a == "--strings":
            multi.append(specs[i + 1]); i += 1
        elif a == "--raw":
            raws.append(specs[i + 1]); i += 1
        elif a == "--block-size":
            bsize = int(specs[i + 1]); i += 1
        elif a == "--npz":
            npz = specs[i + 1]; i += 1
        else:
            name, rest = a.split("=", 1)
            dt, shape, seed = rest.split(":")
            dims = [int(d) for d in shape.split("x")] if shape else []
            rng = np.random.default_rng(int(seed))
            if dt == "bool":
                arr = rng.integers(0, 2, size=dims).astype(bool)
            elif dt.startswith(("int", "uint")):
                info = np.iinfo(dt)
                arr = rng.integers(max(info.min, -1000), min(info.max, 1000), size=dims,
                                   dtype=dt, endpoint=True)
            else:
                arr = (rng.standard_normal(size=dims) * 3).astype(dt)
            tensors.append((name, dt, np.asarray(arr)))
        i += 1
    data = [bytearray() for _ in range(shards)]
    entries = []
    for n, name in enumerate(strings):
        raw, crc = string_tensor(b"graph of " + name.encode() * 7)
        shard = len(entries) % shards
        entries.append((name.encode(), field(1, 0, 7) + field(2, 2, b"") +
                        (field(3, 0, shard) if shard else b"") +
                        (field(4, 0, len(data[shard])) if data[shard] else b"") +
                        field(5, 0, len(raw)) +
                        field(6, 5, mask(crc))))
        data[shard] += raw
    for name in multi:
        raw, crc = string_tensor(b"one", b"", name.encode() * 3)
        shard = len(entries) % shards
        entries.append((name.encode(), field(1, 0, 7) + field(2, 2, shape_proto([3])) +
                        (field(3, 0, shard) if shard else b"") +
                        (field(4, 0, len(data[shard])) if data[shard] else b"") +
                        field(5, 0, len(raw)) +
                        field(6, 5, mask(crc))))
        data[shard] += raw
    for spec in raws:
        name, dt = spec.split("=")
        raw = bytes(range(16))
        shard = len(entries) % shards
        entries.append((name.encode(), entry(int(dt), [2] if dt == "8" else [], shard,
                                             len(data[shard]), len(raw), mask(crc32c(raw)))))
        data[shard] += raw
    for k, (name, dt, arr) in enumerate(tensors):
        raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        shard = (len(entries)) % shards
        entries.append((name.encode(), entry(DTYPES[dt], arr.shape, shard, len(data[shard]),
                                             len(raw), mask(crc32c(raw)), name in sliced)))
        data[shard] += raw
    if header:
        entries.append((b"", field(1, 0, shards) + (field(2, 0, 1) if big else b"") +
                        field(3, 2, field(1, 0, 1))))
    entries.sort(key=lambda e: e[0])
    with open(prefix + ".index", "wb") as f:
        f.write(table(entries, bsize))
    for s in range(shards):
        with open("%s.data-%05d-of-%05d" % (prefix, s, shards), "wb") as f:
            f.write(data[s])
    if npz:
        np.savez(npz, **{name: arr for name, dt, arr in tensors})


if __name__ == "__main__":
    main(sys.argv)
