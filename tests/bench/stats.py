"""What a user would otherwise write for `ckpt-read --stats`: h5py + numpy."""
import sys

import h5py
import numpy as np


def main():
    with h5py.File(sys.argv[1], "r") as f:
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        for n in names:
            a = f[n][()].astype(np.float64)
            print(n, a.min(), a.max(), a.mean(), a.std(), np.linalg.norm(a.ravel()),
                  np.isnan(a).sum(), np.isinf(a).sum(), (a == 0).sum())


if __name__ == "__main__":
    main()
