# A disk that fills while variables are copied (HDF5's object copy used to
# crash there), or a TensorFlow bundle's data are written: one line in the
# toolkit's words, exit 2, nothing left.
mkdir fs
if ! mount -t tmpfs -o size=2m tmpfs fs 2>/dev/null; then
	skip "cannot mount a small tmpfs here"
fi
trap 'umount "$T/fs"' EXIT
need_h5py
"$PY" -c '
import h5py, numpy as np
with h5py.File("m.h5", "w") as f:
    f["a"] = np.random.rand(300000).astype("f4")
    f["b"] = np.random.rand(300000).astype("f4")' || fail "cannot make the input"
run ckpt-merge --split 2 -o 'fs/s%d.h5' m.h5
expect_error ckpt-merge 'write error \(No space left on device\)$'
run ckpt-average --exclude '*' -o fs/t.h5 m.h5 m.h5
expect_error ckpt-average 'write error \(No space left on device\)$'
run ckpt-average -o fs/u.h5 m.h5 m.h5
expect_error ckpt-average 'write error \(No space left on device\)$'
run ckpt-average -o fs/v.index m.h5 m.h5
expect_error ckpt-average 'fs/v.*write error.*No space left on device\)?$'
[ -z "$(ls -A fs)" ] || fail "left in fs: $(ls -A fs)"
