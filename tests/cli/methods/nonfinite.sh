# NaN and Inf propagate: an element where the base or a model is NaN or
# +-Inf is a*b + lambda*sum(w_i (x_i - beta b)) in double over every model;
# SLERP's and model stock's coefficients come from the whole tensor, which
# a NaN or Inf makes NaN.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
inf, nan = np.inf, np.nan
rows = {"base": [1, inf, 1, 1, nan, 2, inf],
        "a":    [inf, inf, -inf, 1, 1, 2, 1],
        "b":    [1, 1, inf, nan, 1, 2, 1]}
for name, v in rows.items():
    with h5py.File(name + ".h5", "w") as f:
        f["x"] = np.array(v, "f4")
PY
for m in "task-arithmetic" "ties --density 0.5" "dare-ties --density 0.5" "breadcrumbs --density 0.5"; do
	run ckpt-average -q --method $m --base base.h5 a.h5 b.h5 -o o.h5 -f
	expect_status 0
	"$PY" - "$m" <<'PY' || fail "$m: not the IEEE value"
import h5py, sys, numpy as np
with h5py.File("o.h5") as f:
    got = f["x"][()]
want = ["inf", "nan", "nan", "nan", "nan"]
for i, w in enumerate(want):
    assert str(got[i]) == w, (sys.argv[1], i, got[i], w)
assert got[5] == 2, got
PY
done
run ckpt-average -q --method slerp -t 0.5 a.h5 b.h5 -o s.h5
expect_status 0
run ckpt-average -q --method model-stock --base base.h5 a.h5 b.h5 -o m.h5
expect_status 0
"$PY" - <<'PY' || fail "slerp, model stock: not NaN"
import h5py, numpy as np
for name in ["s.h5", "m.h5"]:
    with h5py.File(name) as f:
        assert np.isnan(f["x"][()]).all(), (name, f["x"][()])
PY
