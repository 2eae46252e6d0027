# A file with an object header message of a format version newer than this
# build's HDF5 reads (HDF5 2.0's layout message, version 5; made here by
# raising the version byte of a version 3 message) says it was written by
# a newer HDF5, not only "bad version number for layout message".
need_h5py
"$PY" - <<'PY' || fail "cannot make the input"
import h5py, numpy as np, re
with h5py.File("old.h5", "w", libver="earliest") as f:
    f["w"] = np.arange(10, dtype="f4")
b = bytearray(open("old.h5", "rb").read())
# a version 1 object header message: type 8 (layout), size, flags, 3
# reserved bytes; then the message: version 3, class 1 (contiguous)
at = [m.start() for m in re.finditer(rb"\x08\x00..[\x00\x01]\x00\x00\x00\x03\x01", bytes(b), re.S)]
assert len(at) == 1, at
b[at[0] + 8] = 5
open("newer.h5", "wb").write(b)
PY
run ckpt-read newer.h5
expect_error ckpt-read "newer.h5: 'w': .*written by a newer HDF5 than the [0-9.]+ this build uses \(bad version number for layout message\)"
