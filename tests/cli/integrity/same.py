"""same.py A B - whether HDF5 file B keeps everything of A that ckpt
promises to keep: every name (hard, soft and external links, further hard
links as links to the same object), every value (references compared by
the path they point to), attributes, committed types, the user block and
lossless filters; and that B's data live inside B (no external storage, no
virtual datasets).  Prints each difference; exit 1 if any."""
import sys

import h5py
import numpy as np

problems = []


def walk(f):
    """{path: description} of every link, following each object once."""
    out, first = {}, {}

    def visit(g, prefix):
        for name in g:
            path = prefix + name
            link = g.get(name, getlink=True)
            if isinstance(link, h5py.SoftLink):
                out[path] = ("soft", link.path)
                continue
            if isinstance(link, h5py.ExternalLink):
                out[path] = ("external", link.filename, link.path)
                continue
            obj = g[name]
            addr = h5py.h5o.get_info(obj.id).addr
            if addr in first:
                out[path] = ("hard", first[addr])
                continue
            first[addr] = path
            if isinstance(obj, h5py.Group):
                out[path] = ("group",)
                visit(obj, path + "/")
            elif isinstance(obj, h5py.Datatype):
                out[path] = ("datatype", str(obj.dtype))
            else:
                out[path] = ("dataset",)
    visit(f, "")
    return out


def norm(f, v):
    """Values comparable across files: references become paths."""
    if isinstance(v, h5py.Reference):
        return ("ref", f[v].name) if v else ("ref", None)
    if isinstance(v, h5py.RegionReference):
        if not v:
            return ("region", None)
        sel = f[v].regionref  # noqa: only to check it resolves
        return ("region", f[v].name, str(f[v][v]))
    if isinstance(v, np.ndarray) and v.dtype.names:
        return [norm(f, x) for x in v]
    if isinstance(v, np.void) and v.dtype.names:
        return tuple(norm(f, v[k]) for k in v.dtype.names)
    if isinstance(v, np.ndarray) and v.dtype.kind == "O":
        return [norm(f, x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [norm(f, x) for x in v]
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, np.void):
        return ("void", v.tobytes())
    if isinstance(v, bytes):
        return v
    return repr(v)


def values(f, ds):
    if ds.shape is None:
        return ("null",)
    v = ds[()]
    return norm(f, v)


def filters(ds):
    keep = {}
    for k in ("compression", "compression_opts", "shuffle", "fletcher32", "chunks"):
        keep[k] = getattr(ds, k)
    return keep


def compare(a, b):
    la, lb = walk(a), walk(b)
    for p in la:
        if p not in lb:
            problems.append("name '%s' (%s) missing" % (p, la[p][0]))
        elif la[p] != lb[p]:
            problems.append("name '%s': %s became %s" % (p, la[p], lb[p]))
    for p in lb:
        if p not in la:
            problems.append("name '%s' added" % p)
    for p, what in la.items():
        if p not in lb or what[0] not in ("dataset", "group"):
            continue
        oa, ob = a[p], b[p]
        for k in oa.attrs:
            if k not in ob.attrs:
                problems.append("'%s': attribute '%s' missing" % (p, k))
            elif norm(a, oa.attrs[k]) != norm(b, ob.attrs[k]):
                problems.append("'%s': attribute '%s' differs" % (p, k))
        if what[0] != "dataset":
            continue
        if ob.external or ob.is_virtual:
            problems.append("'%s': data outside the output (%s)" %
                            (p, "external" if ob.external else "virtual"))
        if oa.dtype != ob.dtype:
            problems.append("'%s': dtype %s became %s" % (p, oa.dtype, ob.dtype))
        if oa.id.get_type().committed() != ob.id.get_type().committed():
            problems.append("'%s': committed type not kept" % p)
        if values(a, oa) != values(b, ob):
            problems.append("'%s': values differ" % p)
        if not (oa.external or oa.is_virtual) and filters(oa) != filters(ob):
            if not (oa.scaleoffset is not None and oa.dtype.kind == "f"):
                problems.append("'%s': storage %s became %s" % (p, filters(oa), filters(ob)))
    if a.userblock_size != b.userblock_size:
        problems.append("user block %d became %d" % (a.userblock_size, b.userblock_size))


with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    compare(a, b)
    ub = a.userblock_size
for p in problems:
    print(p)
if not problems and ub:
    with open(sys.argv[1], "rb") as fa, open(sys.argv[2], "rb") as fb:
        if fa.read(ub) != fb.read(ub):
            print("user block bytes differ")
            sys.exit(1)
sys.exit(1 if problems else 0)
