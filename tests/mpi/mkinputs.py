"""mkinputs.py DIR: the checkpoints tests/mpi/run.sh averages - contiguous,
compact, chunked and chunked+gzip variables, 16-bit and integer types, a scalar, an
empty one, a string, attributes - as a.h5 b.h5 c.h5; short.h5 lacks 'big';
tiny0.h5 and tiny1.h5 hold one scalar; ub0.h5 and ub1.h5 have a user block;
tie0.h5 and tie1.h5 a tie for SLERP's dot product; coarse0..2.h5 magnitudes
in steps of 1/4; strad0..2.h5 variables two ranks' runs share.
mkinputs.py --damage FILE: spoil every gzip chunk of 'big' in FILE."""
import os
import sys

import h5py
import numpy as np


def make(path, seed):
    rng = np.random.default_rng(seed)
    with h5py.File(path, 'w', track_order=True) as f:
        f.attrs['backend'] = 'ckpt-test'
        f.attrs['epochs'] = np.int32(3)
        g = f.create_group('layer1', track_order=True)
        g.attrs['weight_names'] = np.array([b'kernel:0', b'zip:0', b'bias:0'])
        g.create_dataset('kernel', data=rng.standard_normal((300, 500)).astype('f4'))
        g.create_dataset('zip', data=rng.standard_normal((2000, 700)).astype('f4'),
                         chunks=(64, 100), compression='gzip', compression_opts=4,
                         shuffle=True)
        g.create_dataset('bias', data=(rng.standard_normal(7) * 1e4).astype('f2'))
        # compact: the values live in the object header, which one rank writes
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        d = h5py.h5d.create(g.id, b'compact', h5py.h5t.IEEE_F32LE,
                            h5py.h5s.create_simple((12,)), dcpl)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, rng.standard_normal(12).astype('f4'))
        f.create_dataset('scalar', data=np.float64(seed + 0.1))
        f.create_dataset('empty', shape=(0, 4), dtype='f4')
        f.create_dataset('step', data=np.arange(5, dtype='i8') * (seed + 1))
        if not path.endswith('short.h5'):
            d = f.create_dataset('big', data=rng.standard_normal((2048, 1024)).astype('f4'),
                                 chunks=(256, 1024), compression='gzip', compression_opts=1)
            d.attrs['note'] = 'chunked, gzip'
        f.create_dataset('plain', data=rng.standard_normal((1024, 512)).astype('f4'),
                         chunks=(512, 256))
        f.create_dataset('txt', data='same in every input')


def damage(path):
    with h5py.File(path, 'r') as f:
        d = f['big']
        chunks = [d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks())]
    with open(path, 'r+b') as fp:
        for c in chunks:
            fp.seek(c.byte_offset)
            fp.write(b'\xff' * c.size)


if sys.argv[1] == '--damage':
    damage(sys.argv[2])
else:
    for i, name in enumerate(['a', 'b', 'c', 'short']):
        make(os.path.join(sys.argv[1], name + '.h5'), i)
    for i in range(2):
        with h5py.File(os.path.join(sys.argv[1], 'tiny%d.h5' % i), 'w') as f:
            f.create_dataset('only', data=np.float32(i + 0.25))
    # magnitudes in steps of 1/4: the windows' boundaries among many equal
    # ones, their indices deciding (gzip: written collectively, each
    # variable's windows found by one rank for all)
    for i in range(3):
        rng = np.random.default_rng(10 + i)
        with h5py.File(os.path.join(sys.argv[1], 'coarse%d.h5' % i), 'w') as f:
            for name in ['u', 'v', 'w']:
                f.create_dataset(name, data=(rng.integers(-8, 9, (512, 1024)) / 4).astype('f4'),
                                 chunks=(64, 1024), compression='gzip', compression_opts=1)
    # contiguous variables of 4 and 8 slabs (512 KiB each): under 3 ranks
    # rank 0 computes 'a' alone, ranks 1 and 2 share 'b' (their windows
    # found by one of them for both)
    for i in range(3):
        rng = np.random.default_rng(20 + i)
        with h5py.File(os.path.join(sys.argv[1], 'strad%d.h5' % i), 'w') as f:
            f.create_dataset('a', data=rng.standard_normal((512, 1024)).astype('f4'))
            f.create_dataset('b', data=rng.standard_normal((1024, 1024)).astype('f4'))
    # SLERP's x0.x1 exactly halfway between two doubles, 299999 + 2^-35:
    # no bound decides it, the second pass sums exactly (three slabs of 512 KiB,
    # gzip: written collectively, each rank measuring its share)
    n = 300000
    x0, x1 = np.ones(n, 'f4'), np.ones(n, 'f4')
    x0[-1] = 2.0 ** -35
    for i, x in enumerate([x0, x1]):
        with h5py.File(os.path.join(sys.argv[1], 'tie%d.h5' % i), 'w') as f:
            f.create_dataset('x', data=x, chunks=(50000,), compression='gzip')
        path = os.path.join(sys.argv[1], 'ub%d.h5' % i)
        with h5py.File(path, 'w', userblock_size=512) as f:
            f.create_dataset('w', data=np.arange(100000, dtype='f4') * (i + 1),
                             chunks=(1000,), compression='gzip')
        with open(path, 'r+b') as fp:
            fp.write(b'user block %d' % i)
