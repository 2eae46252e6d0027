# --json writes a whole document or nothing: a missing second file, or a
# damaged variable met while reading values, leaves standard output empty
# (it held a document cut short) with the one-line error; a good run's
# output is one valid document, also when large.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
with h5py.File("good.h5", "w") as f:
    f["w"] = np.arange(200000, dtype="f4")
with h5py.File("bad.h5", "w") as f:
    f["a"] = np.arange(10, dtype="f4")
    f.create_dataset("z", data=np.arange(100000, dtype="f4"), chunks=(1000,), compression="gzip")
PY
# damage the last compressed chunks of bad.h5
"$PY" - <<'PY' || fail "cannot damage bad.h5"
b = bytearray(open("bad.h5", "rb").read())
for i in range(len(b) - 3000, len(b) - 100):
    b[i] ^= 0x5a
open("bad.h5", "wb").write(b)
PY
run ckpt-read --json good.h5 missing.h5
expect_error ckpt-read 'missing.h5: No such file or directory'
[ ! -s "$T/out" ] || fail "stdout holds $(wc -c <"$T/out") bytes"
run ckpt-read --json --stats good.h5 bad.h5
expect_status 2
[ ! -s "$T/out" ] || fail "stdout holds $(wc -c <"$T/out") bytes after a read error"
run ckpt-read --json --values good.h5
expect_status 0
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["files"][0]["variables"][0]["values"]) == 200000' "$T/out" ||
	fail "not one valid document"
