# What a user would otherwise write: every dataset's values, in the order
# the file lists them, concatenated (get_flat), to a raw file.
import sys

import h5py
import numpy as np

src, out = sys.argv[1], sys.argv[2]
names = []
with h5py.File(src, "r") as f:
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    np.concatenate([f[n][()].ravel() for n in names]).tofile(out)
