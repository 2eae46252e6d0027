"""readbundle.py PREFIX [--npz FILE] [--raw DIR] [--blocks] [--order] - read a
TensorFlow tensor bundle as TensorFlow's BundleReader does, independently
of ckpt (the table, the protocol buffers and CRC-32C decoded here in Python
from the formats' definitions), and check it as TensorFlow would: the
footer's magic, every block's CRC, keys in increasing order, the index
block's keys separating the data blocks, the header (one little-endian
shard set, version 1), every entry's size against its dtype and shape, and
every tensor's CRC (a string tensor's as TensorFlow takes it; a variant's
is not checked).  Uncompressed tables only (what TensorFlow's writer
makes).

--npz writes the numeric tensors to FILE (np.savez); --raw writes the
stored bytes of every other tensor (strings, complex, variants) to DIR/NAME
(its name with / as _); --blocks prints
the number of data blocks of the index, --order the tensors' names in the
order of their data.  Exit 1 naming the first
thing wrong."""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkbundle import crc32c, mask  # noqa: E402  (the same definitions)

PLAIN = {8: 8, 11: 1, 12: 1, 13: 4, 15: 2, 16: 2, 18: 16}  # complex, quantized: bytes
TYPES = {1: "<f4", 2: "<f8", 3: "<i4", 4: "u1", 5: "<i2", 6: "i1", 9: "<i8", 10: "?",
         14: "bfloat16", 17: "<u2", 19: "<f2", 22: "<u4", 23: "<u8"}
MAGIC = 0xDB4775248B80FB57


def bad(what):
    sys.exit("readbundle: " + what)


def varint(buf, at):
    v = shift = 0
    while True:
        b = buf[at]
        at += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, at


def fields(buf):
    at = 0
    while at < len(buf):
        tag, at = varint(buf, at)
        num, wire = tag >> 3, tag & 7
        if wire == 0:
            v, at = varint(buf, at)
        elif wire == 5:
            v = struct.unpack_from("<I", buf, at)[0]
            at += 4
        elif wire == 2:
            n, at = varint(buf, at)
            v = buf[at:at + n]
            at += n
        else:
            bad("wire type %d" % wire)
        yield num, wire, v


def block(image, offset, size):
    contents = image[offset:offset + size]
    kind, crc = image[offset + size], struct.unpack_from("<I", image, offset + size + 1)[0]
    if kind != 0:
        bad("block at %d is compressed (type %d)" % (offset, kind))
    if mask(crc32c(contents + bytes([kind]))) != crc:
        bad("block at %d fails its CRC" % offset)
    nrestarts = struct.unpack_from("<I", contents, len(contents) - 4)[0]
    end = len(contents) - 4 - 4 * nrestarts
    restarts = struct.unpack_from("<%dI" % nrestarts, contents, end)
    out, key, at, begins = [], b"", 0, set()
    while at < end:
        begins.add(at)
        shared, at = varint(contents, at)
        fresh, at = varint(contents, at)
        vlen, at = varint(contents, at)
        key = key[:shared] + contents[at:at + fresh]
        at += fresh
        out.append((key, contents[at:at + vlen]))
        at += vlen
    for r in restarts if out else ():
        if r not in begins or varint(contents, r)[0] != 0:
            bad("block at %d: restart point %d is not an unshared key" % (offset, r))
    return out


def table(image):
    if len(image) < 48 or struct.unpack_from("<Q", image, len(image) - 8)[0] != MAGIC:
        bad("no table footer")
    footer = image[len(image) - 48:]
    mo, at = varint(footer, 0)
    ms, at = varint(footer, at)
    io, at = varint(footer, at)
    isz, at = varint(footer, at)
    if block(image, mo, ms):
        bad("the meta index is not empty")
    entries, prev_sep = [], None
    index = block(image, io, isz)
    table.blocks = len(index)
    for sep, handle in index:
        off, at = varint(handle, 0)
        size, _ = varint(handle, at)
        data = block(image, off, size)
        if not data:
            bad("an empty data block")
        if data[-1][0] > sep or (entries and entries[-1][0] >= data[0][0]):
            bad("index key %r does not separate the blocks" % sep)
        if prev_sep is not None and not prev_sep < data[0][0]:
            bad("index key %r is not below the next block's first key" % prev_sep)
        prev_sep = sep
        entries += data
    keys = [k for k, _ in entries]
    if keys != sorted(set(keys)):
        bad("keys are not in increasing order")
    return entries


def main(argv):
    prefix, npz, strings, order, blocks = argv[1], None, None, False, False
    i = 2
    while i < len(argv):
        if argv[i] == "--npz":
            npz = argv[i + 1]; i += 1
        elif argv[i] == "--raw":
            strings = argv[i + 1]; i += 1
        elif argv[i] == "--order":
            order = True
        elif argv[i] == "--blocks":
            blocks = True
        i += 1
    entries = table(open(prefix + ".index", "rb").read())
    if entries[0][0] != b"":
        bad("no header entry")
    header = {n: v for n, _, v in fields(entries[0][1])}
    shards = header.get(1, 0)
    if shards < 1 or header.get(2, 0) != 0 or {n: v for n, _, v in fields(header.get(3, b""))} \
            != {1: 1}:
        bad("header %r" % header)
    data = [open("%s.data-%05d-of-%05d" % (prefix, s, shards), "rb").read()
            for s in range(shards)]
    arrays, placed = {}, []
    for key, value in entries[1:]:
        e = {}
        for n, w, v in fields(value):
            e[n] = v
        dims = [{n: v for n, _, v in fields(d)}.get(1, 0)
                for n, _, d in fields(e.get(2, b"")) if n == 2]
        dt, shard, off, size = e.get(1), e.get(3, 0), e.get(4, 0), e.get(5, 0)
        raw = data[shard][off:off + size]
        if len(raw) != size:
            bad("%s lies beyond its data file" % key)
        name = key.decode()
        count = int(np.prod(dims, dtype=np.int64))
        if dt in TYPES:
            t = TYPES[dt]
            width = 2 if t == "bfloat16" else np.dtype(t).itemsize
            if size != width * count:
                bad("%s: %d bytes for %s %s" % (name, size, t, dims))
            c = crc32c(raw)
            if t == "bfloat16":
                arrays[name] = (np.frombuffer(raw, "<u2").astype("<u4") << 16) \
                    .view("<f4").reshape(dims)
            else:
                arrays[name] = np.frombuffer(raw, t).reshape(dims)
        else:
            if dt == 7:  # the lengths, their masked CRC, the bytes
                at, c, total = 0, 0, 0
                for _ in range(count):
                    n, at = varint(raw, at)
                    c = crc32c(struct.pack("<I", n), c)
                    total += n
                if struct.unpack_from("<I", raw, at)[0] != mask(c) or \
                        len(raw) != at + 4 + total:
                    bad("%s: a malformed string tensor" % name)
                c = crc32c(raw[at + 4:], crc32c(raw[at:at + 4], c))
            elif dt in PLAIN:
                if size != PLAIN[dt] * count:
                    bad("%s: %d bytes for type %d %s" % (name, size, dt, dims))
                c = crc32c(raw)
            else:  # a variant: its CRC is over its parts, not checked here
                c = None
            if strings:
                with open(os.path.join(strings, name.replace("/", "_")), "wb") as f:
                    f.write(raw)
        if c is not None and e.get(6, 0) != mask(c):
            bad("%s fails its CRC" % name)
        placed.append((shard, off, name))
    if blocks:
        print(table.blocks)
    if order:
        for _, _, name in sorted(placed):
            print(name)
    if npz:
        np.savez(npz, **arrays)


if __name__ == "__main__":
    main(sys.argv)
