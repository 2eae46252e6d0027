# Results out of the stored type's range are counted exactly, also when
# both threads share a slab: 200,000 float16 values of 40000 summed with
# --no-normalize overflow to inf, and the warning says how many.
need_h5py
cd "$T"
"$PY" -c 'import h5py, numpy as np
with h5py.File("h.h5", "w") as f:
    f["x"] = np.full(200000, 40000, "f2")
    f["y"] = np.full(5, 1, "f2")' || fail h5py
run ckpt-average --no-normalize -w 1,1 -o s.h5 h.h5 h.h5
expect_status 0
grep -q "^ckpt-average: variable 'x': 200000 values out of the range of float16 (became inf)$" "$T/err" ||
	fail "count: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "more warnings: $(cat "$T/err")"
run ckpt-read -q --head 1 --only x s.h5
expect_out '^inf '
