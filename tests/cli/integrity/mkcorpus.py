"""mkcorpus.py DIR - unusual but valid HDF5 files, one feature each, made
with h5py: what ckpt must read, copy and compute on without losing a name
or touching an input.  Every file also holds a float32 variable 'w'."""
import os
import sys

import h5py
import numpy as np

d = sys.argv[1]
os.chdir(d)
rng = np.random.default_rng(7)
W = rng.standard_normal(12).astype("f4")


def new(name, **kw):
    f = h5py.File(name + ".h5", "w", **kw)
    f["w"] = W
    return f


with new("external") as f:
    (W * 2).tofile("external.raw")
    f.create_dataset("ext", shape=(12,), dtype="f4", external=[("external.raw", 0, 48)])

with h5py.File("vsrc.h5", "w") as s:
    s["a"] = np.arange(6, dtype="f4")
    s["b"] = np.arange(6, 12, dtype="f4")
with new("virtual") as f:
    lay = h5py.VirtualLayout(shape=(12,), dtype="f4")
    lay[0:6] = h5py.VirtualSource("vsrc.h5", "a", shape=(6,))
    lay[6:12] = h5py.VirtualSource("vsrc.h5", "b", shape=(6,))
    f.create_virtual_dataset("v", lay)

with new("hardlinks") as f:
    g = f.create_group("g")
    g["alias"] = f["w"]
    f.create_group("h")["x"] = np.arange(3, dtype="i4")
    f["g/x2"] = f["h/x"]

with new("cycle") as f:
    a = f.create_group("a")
    a.create_group("b")["c"] = a  # a/b/c is a again
    a["v"] = np.ones(2, "f8")

with new("links") as f:
    f["soft"] = h5py.SoftLink("/w")
    f["dangling"] = h5py.SoftLink("/nowhere")
    f["ext"] = h5py.ExternalLink("other.h5", "/x")

for name, kw in [("gzip", dict(compression="gzip", compression_opts=4)),
                 ("lzf", dict(compression="lzf")),
                 ("shuffle", dict(shuffle=True, compression="gzip")),
                 ("fletcher32", dict(fletcher32=True)),
                 ("scaleoffset", dict(scaleoffset=3)),
                 ("chunked", dict())]:
    with new("filter-" + name) as f:
        f.create_dataset("z", data=rng.standard_normal((4, 5)).astype("f4"),
                         chunks=(2, 5), **kw)
        f.create_dataset("i", data=np.arange(20, dtype="i4").reshape(4, 5),
                         chunks=(2, 5), **(dict(scaleoffset=0) if name == "scaleoffset" else kw))

with new("references") as f:
    f["x"] = np.arange(10, dtype="f8")
    r = f.create_dataset("refs", (2,), dtype=h5py.ref_dtype)
    r[0] = f["x"].ref
    r[1] = f["w"].ref
    rr = f.create_dataset("regions", (1,), dtype=h5py.regionref_dtype)
    rr[0] = f["x"].regionref[2:5]
    f["w"].attrs["points_to"] = f["x"].ref
    f["x"].make_scale("x")
    f.create_dataset("y", data=np.zeros(10, "f4")).dims[0].attach_scale(f["x"])

with new("vlen") as f:
    t = h5py.vlen_dtype(np.dtype("i4"))
    v = f.create_dataset("vi", (3,), dtype=t)
    v[0], v[1], v[2] = [1], [2, 3], []
    f.create_dataset("vs", data=["a", "bc", ""], dtype=h5py.string_dtype())

with new("types") as f:
    f.create_dataset("enum", data=np.array([0, 1, 2], "u1"),
                     dtype=h5py.enum_dtype({"R": 0, "G": 1, "B": 2}, basetype="u1"))
    f["compound"] = np.array([(1, 2.5), (3, 4.5)], dtype=[("a", "i4"), ("b", "f8")])
    f["opaque"] = np.void(b"\x01\x02\x03\x04")
    f["be_f8"] = np.arange(4, dtype=">f8")
    f["be_i4"] = np.arange(4, dtype=">i4")
    f["bool"] = np.array([True, False])
    f["named_t"] = np.dtype("<f4")
    f.create_dataset("uses_named", data=np.ones(3, "f4"), dtype=f["named_t"])

with new("userblock", userblock_size=512) as f:
    pass
with open("userblock.h5", "r+b") as fp:
    fp.write(b"ckpt user block test\n")

with new("latest", libver="latest") as f:
    for k in range(11):
        f["w"].attrs["a%d" % k] = "s%d" % k  # dense attribute storage

with new("track_order", track_order=True) as f:
    f["z"] = np.ones(2, "f4")
    f["a"] = np.zeros(2, "f4")

with new("swmr", libver="latest") as f:
    f.create_dataset("grow", shape=(0,), maxshape=(None,), chunks=(4,), dtype="f4")
    f.swmr_mode = True
    f["grow"].resize((3,))
    f["grow"][:] = [1, 2, 3]

with new("fill") as f:
    f.create_dataset("unwritten", shape=(5,), dtype="f4", fillvalue=1.5)
    f.create_dataset("chunked_unwritten", shape=(4, 4), chunks=(2, 2), dtype="i2",
                     fillvalue=-3)

with new("shapes") as f:
    f["scalar"] = np.float64(2.5)
    f.create_dataset("empty", shape=(0, 3), dtype="f4")
    f.create_dataset("null", data=h5py.Empty("f4"))
