# What a user would otherwise write: a copy of the template with every
# dataset set, in order, from a raw float32 vector (set_flat).
import shutil
import sys

import h5py
import numpy as np

template, flat, out = sys.argv[1:4]
shutil.copyfile(template, out)
v = np.fromfile(flat, "<f4")
off = 0
with h5py.File(out, "r+") as f:
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    for n in names:
        d = f[n]
        d[...] = v[off:off + d.size].reshape(d.shape)
        off += d.size
assert off == v.size
