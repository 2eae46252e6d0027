"""readbundle.py PREFIX [--npz FILE] [--raw DIR] [--blocks] [--order] - read a
TensorFlow tensor bundle as TensorFlow's BundleReader does, independently
of ckpt (the table, the protocol buffers and CRC-32C decoded here in Python
from the formats' definitions; the entries again by Google's protobuf
library where it is installed), and check it as TensorFlow would: the
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


def protobuf_messages():
    """BundleHeaderProto and BundleEntryProto (tensor_bundle.proto) as
    Google's protobuf library builds them, or None without it: the entries
    are decoded a second time by it, and must serialize back to the same
    bytes (ckpt writes what a protobuf library writes)."""
    try:
        from google.protobuf import descriptor_pb2, message_factory
    except ImportError:
        return None
    f = descriptor_pb2.FileDescriptorProto(name="bundle.proto", package="t", syntax="proto3")
    T = descriptor_pb2.FieldDescriptorProto

    def message(name, fields, nested=()):
        m = f.message_type.add(name=name) if not nested else nested[0].nested_type.add(name=name)
        for fname, number, kind, label, type_name in fields:
            fd = m.field.add(name=fname, number=number, type=kind, label=label)
            if type_name:
                fd.type_name = type_name
        return m
    opt, rep = T.LABEL_OPTIONAL, T.LABEL_REPEATED
    shape = message("TensorShapeProto", [("dim", 2, T.TYPE_MESSAGE, rep, ".t.TensorShapeProto.Dim"),
                                         ("unknown_rank", 3, T.TYPE_BOOL, opt, None)])
    message("Dim", [("size", 1, T.TYPE_INT64, opt, None), ("name", 2, T.TYPE_STRING, opt, None)],
            (shape,))
    message("VersionDef", [("producer", 1, T.TYPE_INT32, opt, None),
                           ("min_consumer", 2, T.TYPE_INT32, opt, None),
                           ("bad_consumers", 3, T.TYPE_INT32, rep, None)])
    message("BundleHeaderProto", [("num_shards", 1, T.TYPE_INT32, opt, None),
                                  ("endianness", 2, T.TYPE_INT32, opt, None),
                                  ("version", 3, T.TYPE_MESSAGE, opt, ".t.VersionDef")])
    message("BundleEntryProto", [("dtype", 1, T.TYPE_INT32, opt, None),
                                 ("shape", 2, T.TYPE_MESSAGE, opt, ".t.TensorShapeProto"),
                                 ("shard_id", 3, T.TYPE_INT32, opt, None),
                                 ("offset", 4, T.TYPE_INT64, opt, None),
                                 ("size", 5, T.TYPE_INT64, opt, None),
                                 ("crc32c", 6, T.TYPE_FIXED32, opt, None)])
    classes = message_factory.GetMessages([f])
    return classes["t.BundleHeaderProto"], classes["t.BundleEntryProto"]


PROTOS = protobuf_messages()


def check_with_protobuf(key, value, mine):
    """The entry (or header) decoded by the protobuf library: the same
    fields as decoded here, and the same bytes serialized again."""
    if PROTOS is None:
        return
    m = (PROTOS[0] if key == b"" else PROTOS[1])()
    m.ParseFromString(value)
    if m.SerializeToString(deterministic=True) != value:
        bad("%r: not what a protobuf library writes" % key)
    if key != b"":
        got = (m.dtype, [d.size for d in m.shape.dim], m.shard_id, m.offset, m.size, m.crc32c)
        if got != mine:
            bad("%r: protobuf decodes %r, not %r" % (key, got, mine))


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
    check_with_protobuf(b"", entries[0][1], None)
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
        check_with_protobuf(key, value, (dt, dims, shard, off, size, e.get(6, 0)))
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
