# The average of TensorFlow bundles is the average of the same values in
# any other format, bit for bit (three bundles, float32, float16, float64,
# int64; one of them in three data shards), and exact: float32 means checked
# against numpy's float64 mean rounded once.
need_h5py
cd "$T"
M="$TOP/tests/cli/tf/mkbundle.py"
set -- 'k=float32:64x3:' 'h=float16:50:' 'd=float64:7:' 'n=int64:5:'
for i in 1 2 3; do
	specs=$(for s; do printf '%s%s ' "$s" "$i"; done)
	# shellcheck disable=SC2086
	"$PY" "$M" b$i $specs --npz b$i.npz $( [ $i = 2 ] && echo --shards 3 ) ||
		fail "cannot make b$i"
	ckpt-average -q -o b$i.safetensors b$i || fail "cannot convert b$i"
done
run ckpt-average -o tf.h5 b1 b2 b3
expect_status 0
run ckpt-average -o st.h5 b1.safetensors b2.safetensors b3.safetensors
expect_status 0
run ckpt-diff --bitwise tf.h5 st.h5
expect_status 0
ckpt-average -q -o tf.safetensors b1 b2 b3 || fail "average into safetensors"
"$PY" - <<'PY' || fail "not the exact mean"
import json, struct, numpy as np
raw = open("tf.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
t = json.loads(raw[8:8 + n])["k"]
b, e = t["data_offsets"]
got = np.frombuffer(raw[8 + n + b:8 + n + e], "<f4")
ins = [np.load("b%d.npz" % i)["k"].astype("f8").reshape(-1) for i in (1, 2, 3)]
want = ((ins[0] + ins[1] + ins[2]) / 3).astype("f4")  # float32 sums are exact in f8
assert (got == want).all(), "k differs"
PY
