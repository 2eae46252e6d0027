# Every writing program writes safetensors when the output's name says so
# (or "-" with a safetensors base): the base's __metadata__ and tensor
# order kept, values as the HDF5 path computes them.
need_h5py
cd "$T"
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "cannot make the files"
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np, st
rng = np.random.default_rng(3)
for i in range(3):
    st.write(f"m{i}.safetensors", [
        ("lm_head.weight", rng.standard_normal((5, 4)).astype("f4")),
        ("embed.weight", rng.standard_normal((3, 4)).astype("f2")),
        ("steps", np.array([i, 10 * i], "i8")),
    ], metadata={"format": "pt", "run": str(i)})
PY
ckpt-average -o m0.h5 m0.safetensors && ckpt-average -o m1.h5 m1.safetensors &&
	ckpt-average -o m2.h5 m2.safetensors || fail "cannot convert"

# ckpt-average: the same values as from HDF5, in the base's order and metadata
run ckpt-average -o avg.safetensors m0.safetensors m1.safetensors m2.safetensors
expect_status 0
expect_quiet_stderr
run ckpt-average -o avg.h5 m0.h5 m1.h5 m2.h5
expect_status 0
run ckpt-diff avg.safetensors avg.h5
expect_status 0
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "avg.safetensors is not the exact average"
import sys
from fractions import Fraction
sys.path.insert(0, sys.argv[1])
import numpy as np, st
meta, out = st.read("avg.safetensors")
assert meta == {"format": "pt", "run": "0"}, meta
assert [t[0] for t in out] == ["lm_head.weight", "embed.weight", "steps"]
ins = [dict((t[0], st.array(*t[1:])) for t in st.read(f"m{i}.safetensors")[1]) for i in range(3)]
got = st.array(*out[0][1:])
F = lambda v: Fraction(float(v))
for k, x in enumerate(got.flat):  # the float32 nearest the exact mean
    exact = sum(F(d["lm_head.weight"].flat[k]) for d in ins) / 3
    for y in (np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))):
        assert abs(F(x) - exact) <= abs(F(y) - exact), (k, x, float(exact))
assert out[1][1] == "F16" and out[2][1] == "I64"
PY

# ckpt-merge: a safetensors base, an HDF5 source mapped by name
run ckpt-merge --add-prefix model. -o /dev/null m0.safetensors m1.h5
expect_error ckpt-merge "no variable of m1.h5 matches"
run ckpt-merge --rename 'embed.*=embed.*' -o merged.safetensors m0.safetensors m1.h5
expect_status 0
run ckpt-diff merged.safetensors m1.safetensors
expect_status 0
cmp -s merged.safetensors m1.safetensors && fail "the base's metadata was not kept"
head -c 200 merged.safetensors | grep -q '"run":"0"' || fail "merged lost the base's metadata"

# ckpt-flatten | ckpt-unflatten --template: the template's format and metadata
ckpt-flatten --dtype f64 -o - m2.safetensors |
	ckpt-unflatten --dtype f64 --template m0.safetensors -o un.safetensors - 2>err ||
	fail "flatten | unflatten: $(cat err)"
"$PY" -c "
import sys; sys.path.insert(0, '$TOP/tests/cli/safetensors'); import st
a, b = st.read('un.safetensors'), st.read('m2.safetensors')
assert a[0]['run'] == '0' and [t[1:] for t in a[1]] == [t[1:] for t in b[1]]" ||
	fail "unflatten into a safetensors template"

# ckpt-merge --split and --join: shards are safetensors files; joined bitwise
run ckpt-merge --split 2 -o 'sh%d.safetensors' m0.safetensors
expect_status 0
[ -s sh0.safetensors ] && [ -s sh1.safetensors ] || fail "no shards"
run ckpt-merge --join -o joined.safetensors sh1.safetensors sh0.safetensors
expect_status 0
cmp -s joined.safetensors m0.safetensors || fail "split + join changed the file"

# ckpt-train: a safetensors checkpoint, and training resumed from it
run ckpt-train -q --iterations 30 -o t30.safetensors
expect_status 0
run ckpt-train -q --init t30.safetensors --iterations 10 -o t40.h5
expect_status 0
run ckpt-train -q --iterations 40 -o ref.h5
run ckpt-diff t40.h5 ref.h5
expect_status 0
head -c 300 t30.safetensors | grep -q '"iterations":"30"' || fail "no iterations in the metadata"

# from HDF5: what safetensors cannot hold is said once, naming it
"$PY" - <<'PY' || fail "cannot make h.h5"
import h5py, numpy as np
with h5py.File("h.h5", "w") as f:
    f.attrs["framework"] = "pt"
    f.attrs["epoch"] = 3
    f["enc/w"] = np.arange(6, dtype="f4").reshape(2, 3)
    f["enc/w"].attrs["unit"] = "m"
    f["labels"] = np.array([b"a", b"b"])
    f["enc/alias"] = f["enc/w"]
PY
run ckpt-average -o h.safetensors h.h5
expect_status 0
[ "$(wc -l <err)" -eq 1 ] || fail "not one warning: $(cat err)"
grep -q "^ckpt-average: h.safetensors: left out what safetensors cannot hold: 1 non-numeric variable ('labels'), 2 attributes (on '/', ...), 1 link ('enc/w')$" err ||
	fail "warning: $(cat err)"
head -c 100 h.safetensors | grep -q '"__metadata__":{"framework":"pt"}' || fail "root string attribute not kept"
