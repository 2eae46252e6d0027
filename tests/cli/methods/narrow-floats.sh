# Models stored in 8-bit floats (safetensors) merge as the same values
# stored in float32 do: widening is exact, so the magnitude windows, the
# elections and the sums are the same, and a float32 result the same bits -
# on a tensor of several pieces of the windows' first pass (5000 elements).
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
r = np.random.default_rng(6)
for i in range(4):
    with h5py.File("s%d.h5" % i, "w") as f:
        f["w"] = r.standard_normal(5000).astype("f4")
        f["v"] = r.standard_normal((40, 30)).astype("f4")
PY
for t in f8e4m3 f8e5m2; do
	for i in 0 1 2 3; do # (the 8-bit values, and the same ones in float32)
		ckpt-average -q -f --dtype $t -o "$t$i.safetensors" "s$i.h5" || fail "$t$i"
		ckpt-average -q -f --dtype float32 -o "w$i.safetensors" "$t$i.safetensors" ||
			fail "w$i"
	done
	for m in "ties --density 0.3" "breadcrumbs --density 0.5 --gamma 0.05" \
	         "dare-ties --density 0.6 --seed 2" "task-arithmetic"; do
		run ckpt-average --dtype float32 --method $m --base "${t}0.safetensors" \
			"${t}1.safetensors" "${t}2.safetensors" "${t}3.safetensors" -o n.safetensors -f
		expect_status 0
		run ckpt-average --method $m --base w0.safetensors w1.safetensors w2.safetensors \
			w3.safetensors -o f.safetensors -f
		expect_status 0
		run ckpt-diff --bitwise n.safetensors f.safetensors
		[ "$rc" -eq 0 ] || fail "$t, $m: not the float32 models' result: $(cat "$T/out")"
	done
done
