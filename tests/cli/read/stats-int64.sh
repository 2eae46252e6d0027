# --stats of 64-bit integers beyond 2^53: min and max exact (they were
# printed as rounded doubles), the mean the exact mean rounded once;
# checked against Python's integers and fractions, in the table and JSON.
need_h5py
"$PY" - <<'PY' || fail "cannot make the input"
import h5py, numpy as np
with h5py.File("i.h5", "w") as f:
    f["s"] = np.array([2**63 - 1, -2**63, 2**53 + 1, 3], "i8")
    f["u"] = np.array([2**64 - 1, 2**53 + 1, 2**64 - 3], "u8")
    f["big"] = np.array([2**60 + 1, 2**60 + 3], "i8")
    f["small"] = np.array([-7, 5], "i2")
PY
run ckpt-read --stats --json i.h5
expect_status 0
"$PY" - "$T/out" <<'PY' || fail "statistics not exact"
import json, sys, h5py
from fractions import Fraction as F
doc = json.load(open(sys.argv[1]))
f = h5py.File("i.h5")
for v in doc["files"][0]["variables"]:
    x = [int(t) for t in f[v["name"]][:]]
    st = v["stats"]
    assert int(str(st["min"])) == min(x), (v["name"], st["min"], min(x))
    assert int(str(st["max"])) == max(x), (v["name"], st["max"], max(x))
    want = F(sum(x), len(x))
    assert float(st["mean"]) == want.numerator / want.denominator, (v["name"], st["mean"], float(want))
PY
run ckpt-read --stats --only u i.h5
expect_status 0
expect_out ' 9007199254740993 +18446744073709551615 '
