# On random pairs, ckpt-diff's verdict per variable is numpy.isclose's
# (equal_nan=True), for several atol/rtol settings.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail h5py
import h5py, numpy as np
r = np.random.default_rng(5)
with h5py.File("a.h5", "w") as fa, h5py.File("b.h5", "w") as fb:
    for k in range(40):
        a = r.standard_normal(50) * 10.0 ** r.integers(-3, 3)
        b = a + r.standard_normal(50) * 10.0 ** r.integers(-9, 0) * (r.random(50) < 0.3)
        a[r.random(50) < 0.05] = np.nan
        b[np.isnan(a) & (r.random(50) < 0.5)] = np.nan
        t = ["f4", "f8"][k % 2]
        fa[f"v{k}"] = a.astype(t)
        fb[f"v{k}"] = b.astype(t)
PY
for tol in "0 0" "1e-6 0" "0 1e-5" "1e-4 1e-3" "1e-2 0"; do
	set -- $tol
	ckpt-diff --json --atol $1 --rtol $2 a.h5 b.h5 >"$T/j" 2>"$T/err"
	[ $? -le 1 ] || fail "ckpt-diff: $(cat "$T/err")"
	"$PY" - "$T/j" $1 $2 <<'PY' || fail "verdicts differ at atol=$1 rtol=$2"
import json, sys, h5py, numpy as np
d = json.load(open(sys.argv[1])); atol, rtol = float(sys.argv[2]), float(sys.argv[3])
differs = {v["name"] for v in d["variables"] if v["status"] != "equal"}
fa, fb = h5py.File("a.h5", "r"), h5py.File("b.h5", "r")
for n in fa:
    a, b = fa[n][()].astype("f8"), fb[n][()].astype("f8")
    close = np.isclose(a, b, atol=atol, rtol=rtol, equal_nan=True)
    assert (not close.all()) == (n in differs), (n, (~close).sum())
    if n in differs:
        v = next(x for x in d["variables"] if x["name"] == n)
        assert v["differ"] == (~close).sum(), (n, v["differ"], (~close).sum())
PY
done
