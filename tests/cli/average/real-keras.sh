# Real Keras files of one layout: the average keeps layer_names and
# weight_names (h5py reads them back) and equals numpy's mean.
need_real
need_h5py
cd "$T"
K="$REAL/keras"
a="$K/hls4ml_KERAS_3layer_weights_k2.0.0.h5"
b="$K/hls4ml_KERAS_3layer_70pruned_retrained_weights_k2.1.3.h5"
c="$K/hls4ml_KERAS_3layer_95pruned_retrained_weights_k2.0.0.h5"
run ckpt-average -o avg.h5 "$a" "$b" "$c"
expect_status 0
"$PY" - "$a" "$b" "$c" <<'PY' || fail "differs from numpy"
import sys, h5py, numpy as np
ins = [h5py.File(p, "r") for p in sys.argv[1:]]
out = h5py.File("avg.h5", "r")
assert list(out.attrs["layer_names"]) == list(ins[0].attrs["layer_names"])
for layer in ins[0].attrs["layer_names"]:
    g = out[layer.decode()]
    assert list(g.attrs["weight_names"]) == list(ins[0][layer.decode()].attrs["weight_names"])
    for wn in g.attrs["weight_names"]:
        n = f"{layer.decode()}/{wn.decode()}"
        want = np.mean(np.stack([f[n][()].astype("f8") for f in ins]), axis=0).astype("f4")
        assert (out[n][()] == want).all(), n
PY
