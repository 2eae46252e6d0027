# Magnitude windows and DARE's mask on tensors of several slabs: the kept
# elements are exactly the ranks [first, first + keep) of |x - base| (larger
# first, equal magnitudes by lower flat index), found by radix select: a
# boundary among a million equal magnitudes (known to the last bit, then
# located by index), one among distinct ones (gathered and selected), and
# DARE's draws from the man page's definition, vectorised in numpy.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(8)
n = 1200000
flat = np.where(r.random(n) < 0.5, 0.5, -0.5).astype("f4")
flat[r.integers(0, n, 1000)] = r.standard_normal(1000) * 4
with h5py.File("base.h5", "w") as f:
    f["flat"] = np.zeros(n, "f4")
    f["distinct"] = np.zeros((1200, 1000), "f4")
    f["rows"] = np.zeros((1200, 1000), "f4")
with h5py.File("x.h5", "w") as f:
    f["flat"] = flat
    f["distinct"] = r.standard_normal((1200, 1000)).astype("f4")
    # (an embedding's kind: the first rows' changes larger than the rest's)
    f["rows"] = (r.standard_normal((1200, 1000)) / (1 + np.arange(1200) / 20)[:, None]).astype("f4")
PY
check() { # ARGS...: the output is x where the reference keeps it, else 0
	"$PY" - "$@" <<'PY' || fail "$*: not the reference's elements"
import h5py, math, sys, numpy as np
from fractions import Fraction as F
args = sys.argv[1:]
opt = dict(zip(args[::2], args[1::2]))
with h5py.File("x.h5") as f, h5py.File("o.h5") as o:
    for name in ["flat", "distinct", "rows"]:
        x = f[name][()].reshape(-1)
        got = o[name][()].reshape(-1)
        n = x.size
        if opt["--method"] == "dare-linear":
            M = np.uint64
            def mix(z):
                z = (z ^ (z >> M(30))) * M(0xbf58476d1ce4e5b9)
                z = (z ^ (z >> M(27))) * M(0x94d049bb133111eb)
                return z ^ (z >> M(31))
            h = 0xcbf29ce484222325
            for c in name.encode():
                h = ((h ^ c) * 0x100000001b3) % 2 ** 64
            key = int(mix(np.array([int(opt["--seed"]) ^ h], M))[0])
            k = mix(np.array([key], M))[0]  # model 0
            with np.errstate(over="ignore"):
                u = mix(k + (np.arange(n, dtype=M) + M(1)) * M(0x9e3779b97f4a7c15))
            keep = (u >> M(11)).astype("f8") * 2.0 ** -53 < float(opt["--density"])
            want = np.where(keep, x.astype("f8") / float(opt["--density"]), 0).astype("f4")
        else:
            target = math.floor(F(float(opt["--density"])) * n)
            top = 0
            if opt["--method"] == "breadcrumbs":
                top = min(math.floor(F(float(opt["--gamma"])) * n), n - target)
            keys = np.abs(x.astype("f8")).view("u8")
            order = np.lexsort((np.arange(n), ~keys))
            keep = np.zeros(n, bool)
            keep[order[top:top + target]] = True
            want = np.where(keep, x, 0).astype("f4")
        assert np.array_equal(got.view("u4"), want.view("u4")), \
            (name, int((got.view("u4") != want.view("u4")).sum()))
PY
}
for m in "--method breadcrumbs --density 0.5 --gamma 0.001" "--method ties --density 0.3" \
         "--method dare-linear --density 0.7 --seed 11"; do
	run ckpt-average $m --base base.h5 x.h5 -o o.h5 -f
	expect_status 0
	check $m
done
# -v says how each variable was measured: in how many passes
run ckpt-average -v --method ties --density 0.3 --base base.h5 x.h5 -o o.h5 -f
expect_status 0
for v in flat distinct; do
	grep -Eq "^ckpt-average: $v: magnitude windows found in [1-9][0-9]* pass(es)?( |$)" "$T/err" ||
		fail "-v: no passes for $v: $(cat "$T/err")"
done
# a boundary among a million equal magnitudes: one pass, then one over the
# slabs of the stretch that holds it alone (not counted as a whole pass)
msg="found in 1 pass and 1 over 1 stretch alone (after a sample of 262144 elements)"
grep -q "^ckpt-average: flat: magnitude windows $msg\$" "$T/err" ||
	fail "-v: flat not found in one pass and one over a stretch: $(cat "$T/err")"
# the sample is spread over the tensor: its start alone (the large rows)
# would put the window where the boundary is not, and cost another pass;
# whole (4 MiB of 16-byte keys: 262144 elements of the one model), though
# its stretches cross the rows' slabs
for v in distinct rows; do
	grep -q "^ckpt-average: $v: magnitude windows found in 1 pass (after a sample of 262144 elements)$" "$T/err" ||
		fail "-v: $v not found in one pass after a whole sample: $(cat "$T/err")"
done
run ckpt-average -v --method model-stock --base base.h5 x.h5 x.h5 -o o.h5 -f
expect_status 0
grep -Eq "^ckpt-average: flat: dot products measured in [12] pass" "$T/err" ||
	fail "-v: no passes for model stock: $(cat "$T/err")"
