# The methods on the formats ckpt reads and writes: the same models as
# safetensors, PyTorch files and TensorFlow bundles give the HDF5 result's
# values, bit for bit, in the base's format.
need_h5py
not_under_valgrind # (the formats' own cases run under it; the engine is the same)
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(4)
b = {"dense/kernel": r.standard_normal((16, 8)), "dense/bias": r.standard_normal(8),
     "emb": r.standard_normal((30, 4))}
for k, name in enumerate(["base", "a", "b", "c"]):
    with h5py.File(name + ".h5", "w") as f:
        for v, x in b.items():
            f[v] = (x + 0.05 * k * r.standard_normal(x.shape)).astype("f4")
PY
for f in base a b c; do
	for ext in safetensors pt index; do
		ckpt-average -q -o "$f.$ext" "$f.h5" || fail "$f.$ext: conversion"
	done
done
for m in "ties --density 0.4" "dare-linear --density 0.5 --seed 4" "model-stock" \
         "breadcrumbs-ties --density 0.5 --gamma 0.1"; do
	run ckpt-average --method $m --base base.h5 a.h5 b.h5 c.h5 -o ref.h5 -f
	expect_status 0
	for ext in safetensors pt index; do
		run ckpt-average --method $m --base "base.$ext" "a.$ext" "b.$ext" "c.$ext" -o "out.$ext" -f
		expect_status 0
		run ckpt-diff --bitwise "out.$ext" ref.h5
		[ "$rc" -eq 0 ] || fail "$m, $ext: not the HDF5 result: $(cat "$T/out" "$T/err")"
	done
done
run ckpt-average --method slerp -t 0.3 a.pt b.safetensors -o s.h5
expect_status 0
run ckpt-average --method slerp -t 0.3 a.h5 b.h5 -o s0.h5
run ckpt-diff --bitwise s.h5 s0.h5
expect_status 0
