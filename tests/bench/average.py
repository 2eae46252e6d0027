"""What a user would otherwise write for `ckpt-average -o OUT IN...`:
h5py + numpy, variable by variable, mean in float64."""
import sys

import h5py
import numpy as np


def main():
    out, ins = sys.argv[1], [h5py.File(p, "r") for p in sys.argv[2:]]
    names = []
    ins[0].visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    with h5py.File(out, "w") as f:
        for n in names:
            acc = ins[0][n][()].astype(np.float64)
            for g in ins[1:]:
                acc += g[n][()]
            f[n] = (acc / len(ins)).astype(ins[0][n].dtype)


if __name__ == "__main__":
    main()
