# Variables --only/--exclude leave out, and integer ones, are the base's,
# bit for bit; --dry-run says per variable what would be done and writes
# nothing.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(3)
b = {"enc/w": r.standard_normal((8, 4)), "enc/b": r.standard_normal(4),
     "head/w": r.standard_normal((4, 2))}
for k, name in enumerate(["base", "a", "b"]):
    with h5py.File(name + ".h5", "w") as f:
        for v, x in b.items():
            f[v] = (x + 0.1 * k * r.standard_normal(x.shape)).astype("f4")
        f["step"] = np.int64(100 + k)
PY
run ckpt-average --method ties --density 0.5 --exclude 'head/*' --base base.h5 a.h5 b.h5 -o o.h5
expect_status 0
for v in head/w step; do
	run ckpt-diff --only "$v" base.h5 o.h5
	expect_status 0
done
run ckpt-diff --only 'enc/*' base.h5 o.h5
expect_status 1
run ckpt-average --method ties --density 0.5 --only 'enc/b' --base base.h5 a.h5 b.h5 --dry-run
expect_status 0
expect_out '^enc/b	ties	keeps ranks 0\.\.2 of 4 by \|x - base\| in each model$'
expect_out '^enc/w	copied from base\.h5 \(--only/--exclude\)$'
expect_out '^step	copied from base\.h5 \(--only/--exclude\)$'
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "not one line per variable: $(cat "$T/out")"
run ckpt-average --method ties --base base.h5 a.h5 b.h5 --dry-run
expect_out '^step	copied from base\.h5 \(not a float\)$'
expect_out '^enc/w	ties	keeps ranks 0\.\.32 of 32 by'
expect_no_file o.h5.tmp
run ckpt-average --method dare-linear --density 0.25 --seed 9 --base base.h5 a.h5 b.h5 --dry-run -o x.h5
expect_out '^enc/w	dare-linear	keeps each element with probability 0\.25 \(seed 9\)$'
expect_no_file x.h5
