# Computed values are not written through a lossy filter (scale-offset on
# floats) without a word: the filter is left out, with one warning naming
# the variable; --keep-storage keeps it; lossless filters stay; a variable
# copied unchanged keeps everything.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
rng = np.random.default_rng(1)
for n in "ab":
    with h5py.File(n + ".h5", "w") as f:
        f.create_dataset("w", data=rng.random(50).astype("f4"), scaleoffset=3,
                         chunks=(50,), compression="gzip", shuffle=True)
        f.create_dataset("k", data=rng.random(50).astype("f4"), scaleoffset=3, chunks=(50,))
PY
run ckpt-average --exclude k -o avg.h5 a.h5 b.h5
expect_status 0
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "not one warning: $(cat "$T/err")"
grep -q "^ckpt-average: a.h5: variable 'w': lossy scale-offset filter left out" "$T/err" ||
	fail "warning: $(cat "$T/err")"
run ckpt-average -q --exclude k -o q.h5 a.h5 b.h5
expect_status 0
expect_quiet_stderr
run ckpt-average --keep-storage --exclude k -o keep.h5 a.h5 b.h5
expect_status 0
expect_quiet_stderr
ckpt-flatten a.h5 | ckpt-unflatten --template a.h5 -o u.h5 2>uerr || fail "unflatten: $(cat uerr)"
grep -q "variable 'w': lossy scale-offset" uerr || fail "unflatten said nothing: $(cat uerr)"
"$PY" - <<'PY' || fail "outputs wrong"
import h5py, numpy as np
a, b = h5py.File("a.h5"), h5py.File("b.h5")
want = ((a["w"][:].astype("f8") + b["w"][:]) / 2).astype("f4")
with h5py.File("avg.h5") as f:
    assert f["w"].scaleoffset is None, "lossy filter kept"
    assert f["w"].compression == "gzip" and f["w"].shuffle, "lossless filters lost"
    assert (f["w"][:] == want).all(), "average quantized"
    assert f["k"].scaleoffset == 3, "a copied variable lost its filter"
with h5py.File("keep.h5") as f:
    assert f["w"].scaleoffset == 3, "--keep-storage did not keep it"
with h5py.File("u.h5") as f:
    assert f["w"].scaleoffset is None
PY
