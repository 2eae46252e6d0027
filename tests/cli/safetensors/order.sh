# A safetensors file whose '/'-names interleave (a/x, b/y, a/z, c, a/w)
# goes to HDF5 and back to the same bytes (HDF5's walk met them grouped:
# a/x, a/z, a/w, b/y, c).  The HDF5 output keeps the order in a root
# attribute that ckpt reads (not metadata); a grouped file needs none; an
# HDF5 subset of the variables ignores an order that no longer fits.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import json, struct, numpy as np
def st(path, names):
    hdr, data = {}, b""
    for k, n in enumerate(names):
        hdr[n] = {"dtype": "F32", "shape": [2], "data_offsets": [len(data), len(data) + 8]}
        data += np.array([k, -k], "f4").tobytes()
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)
st("inter.safetensors", ["a/x", "b/y", "a/z", "c", "a/w", "a/q/r", "b/s/t", "a/q/u"])
st("grouped.safetensors", ["a/x", "a/q/r", "a/z", "b/y", "c"])
PY
order() { ckpt-read "$1" | awk 'NR > 1 && NF == 5 { printf "%s ", $1 }'; }
want="a/x b/y a/z c a/w a/q/r b/s/t a/q/u "
run ckpt-average -o c1.safetensors inter.safetensors
expect_status 0
run ckpt-average -o c1.h5 c1.safetensors
expect_status 0
[ "$(order c1.h5)" = "$want" ] || fail "HDF5 lists $(order c1.h5)"
run ckpt-average -o c2.safetensors c1.h5
expect_status 0
cmp -s c1.safetensors c2.safetensors || fail "safetensors -> HDF5 -> safetensors changed the bytes"
# h5py sees the groups and a string attribute; the metadata has no order
"$PY" - <<'PY' || fail "c1.h5"
import h5py, json
f = h5py.File("c1.h5")
assert sorted(f["a"].keys()) == ["q", "w", "x", "z"], list(f["a"])
assert json.loads(f.attrs["ckpt_order"])[:3] == ["a/x", "b/y", "a/z"]
PY
grep -q ckpt_order c2.safetensors && fail "the order went into the metadata"
run ckpt-average -o g.h5 grouped.safetensors
expect_status 0
"$PY" -c 'import h5py; assert "ckpt_order" not in h5py.File("g.h5").attrs' || fail "grouped: an order written"
cp c1.h5 sub.h5
"$PY" -c 'import h5py; del h5py.File("sub.h5", "a")["c"]' || fail h5py
[ "$(order sub.h5)" = "a/x a/z a/w a/q/r a/q/u b/y b/s/t " ] || fail "subset: $(order sub.h5)"
