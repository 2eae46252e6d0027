# The mean of fixture-like files, every dtype; the output keeps the first
# input's structure; an input may be the output.
cd "$T"
need_h5py
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
for k, s in enumerate([1.0, 2.0, 4.5]):
    with h5py.File(f"in{k}.h5", "w") as f:
        f.attrs["layer_names"] = np.array([b"dense"])
        g = f.create_group("dense")
        g.attrs["weight_names"] = np.array([b"dense/kernel:0"])
        g.create_dataset("kernel:0", data=np.arange(6, dtype="f4").reshape(2, 3) * s,
                         chunks=(1, 3), compression="gzip")
        f["i32"] = np.array([1, 2, -3], "i4") * int(s * 2)
        f["empty_layer"] = np.zeros((0,), "f4")
        f.create_group("input_1").attrs["weight_names"] = np.zeros((0,), "f8")
PY
run ckpt-average -o avg.h5 in0.h5 in1.h5 in2.h5
expect_status 0
expect_quiet_stderr
"$PY" - <<'PY' || fail "wrong average"
import h5py, numpy as np
f = h5py.File("avg.h5", "r")
k = f["dense/kernel:0"]
want = (np.arange(6, dtype="f4").reshape(2, 3).astype("f8") * (1 + 2 + 4.5) / 3).astype("f4")
assert (k[()] == want).all(), k[()]
assert k.chunks == (1, 3) and k.compression == "gzip"
assert list(f.attrs["layer_names"]) == [b"dense"]
assert list(f["dense"].attrs["weight_names"]) == [b"dense/kernel:0"]
assert "input_1" in f and f["input_1"].attrs["weight_names"].shape == (0,)
assert list(f["i32"][()]) == [5, 10, -15], f["i32"][()]   # (2+4+9)/3 = 5
PY
run ckpt-average -o in0.h5 in0.h5 in1.h5
expect_error ckpt-average "in0.h5: already exists"
run ckpt-average -f -o in0.h5 in0.h5 in1.h5
expect_status 0
"$PY" -c 'import h5py; assert h5py.File("in0.h5","r")["i32"][0] == 3' || fail "in place"
