"""same.py A B: whether two HDF5 files hold the same checkpoint, as the MPI
programs promise the serial ones': the same objects in the same order, the
same values bit for bit, dtypes, shapes, storage (layout, chunks, filters)
and attributes.  Exit 0 when they do; otherwise one line per difference."""
import sys

import h5py
import numpy as np


def walk(f):
    out = []
    f.visititems(lambda name, obj: out.append((name, obj)))
    return out


def storage(d):
    return (d.id.get_create_plist().get_layout(), d.chunks, d.compression, d.compression_opts, d.shuffle,
            d.fletcher32, d.scaleoffset, tuple(sorted(d._filters.items())))


def attrs(obj):
    return {k: (repr(obj.attrs[k]), obj.attrs.get_id(k).dtype.str)
            for k in obj.attrs}


def main(a, b):
    bad = []
    with h5py.File(a, 'r') as fa, h5py.File(b, 'r') as fb:
        wa, wb = walk(fa), walk(fb)
        if [n for n, _ in wa] != [n for n, _ in wb]:
            bad.append('objects differ: %s / %s' % ([n for n, _ in wa], [n for n, _ in wb]))
        if attrs(fa) != attrs(fb):
            bad.append('/: attributes differ')
        for (n, x), (_, y) in zip(wa, wb):
            if attrs(x) != attrs(y):
                bad.append('%s: attributes differ' % n)
            if isinstance(x, h5py.Dataset) != isinstance(y, h5py.Dataset):
                bad.append('%s: kinds differ' % n)
                continue
            if not isinstance(x, h5py.Dataset):
                continue
            if x.dtype != y.dtype or x.shape != y.shape:
                bad.append('%s: %s%s / %s%s' % (n, x.dtype, x.shape, y.dtype, y.shape))
                continue
            if storage(x) != storage(y):
                bad.append('%s: storage %s / %s' % (n, storage(x), storage(y)))
            if x.shape is None:
                continue
            va, vb = x[()], y[()]
            if isinstance(va, np.ndarray) and va.dtype.kind in 'fiub':
                same = va.tobytes() == vb.tobytes()
            else:
                same = repr(va) == repr(vb)
            if not same:
                bad.append('%s: values differ' % n)
    for line in bad:
        print('%s vs %s: %s' % (a, b, line))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
