# A .keras archive of over 4 GiB (zip64 offsets): a 2.1 GiB weights member
# written as Keras streams it (sizes in a zip64 data descriptor) and a
# 2.1 GiB asset.  Read, and written again whole: the output loads in
# Python's zipfile (every CRC checked) and holds the same weights.  About
# 9 GB of disk and 2.2 GB of memory: run only with CKPT_LARGE_TESTS=1.
[ -n "${CKPT_LARGE_TESTS:-}" ] || skip "large (9 GB of disk): set CKPT_LARGE_TESTS=1"
not_under_valgrind
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "cannot make the archive"
import h5py, json, numpy as np, shutil, zipfile
with h5py.File("w.h5", "w") as f:
    d = f.create_dataset("layers/dense/vars/0", shape=(2200, 1024, 256), dtype="f4")
    for i in range(0, 2200, 100):
        d[i:i + 100] = np.full((100, 1024, 256), i, "f4")
    f["layers/dense/vars/1"] = np.arange(4, dtype="f4")
with open("asset.bin", "wb") as a:
    a.truncate(2200 << 20)
with zipfile.ZipFile("big.keras", "w") as z:
    z.writestr("metadata.json", json.dumps({"keras_version": "3.10.0"}))
    z.writestr("config.json", "{}")
    for src, name in [("w.h5", "model.weights.h5"), ("asset.bin", "assets/blob.bin")]:
        with open(src, "rb") as i, z.open(name, "w", force_zip64=True) as o:
            shutil.copyfileobj(i, o, 1 << 20)
PY
run ckpt-diff big.keras w.h5
expect_status 0
run ckpt-average -o out.keras big.keras
expect_status 0
expect_quiet_stderr
"$PY" - <<'PY' || fail "out.keras does not load in zipfile"
import zipfile
z = zipfile.ZipFile("out.keras")
assert [i.filename for i in z.infolist()] == \
    ["metadata.json", "config.json", "model.weights.h5", "assets/blob.bin"], z.namelist()
assert z.getinfo("assets/blob.bin").file_size == 2200 << 20
assert z.testzip() is None
PY
run ckpt-diff out.keras w.h5
expect_status 0
