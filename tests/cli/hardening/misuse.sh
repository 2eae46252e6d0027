# Small misuse cases: names a manifest could not hold are refused up
# front; --manifest and -o naming one file is a usage error (it used to
# leave one of them behind); bool bytes other than 0/1 in a raw stream are
# stored as true, with a warning; a template may be an archive.
run ckpt-flatten --add-prefix ../ --manifest m.tsv -o f.bin "$FIX/model.h5"
expect_error ckpt-flatten "would be called '\.\./.*', which is not a variable name"
run ckpt-flatten --add-prefix / --manifest m.tsv -o f.bin "$FIX/model.h5"
expect_error ckpt-flatten "would be called '/"
run ckpt-flatten --manifest X -o X "$FIX/model.h5"
expect_usage_error ckpt-flatten '--manifest and -o name the same file'
expect_no_file X m.tsv f.bin
need_h5py
"$PY" -c '
import h5py, numpy as np
with h5py.File("b.h5", "w") as f:
    f["m"] = np.array([True, False, True, False])' || fail "cannot make the input"
printf '\000\002\377\001' >raw
run ckpt-unflatten --template b.h5 -o bo.h5 raw
expect_status 0
grep -q "variable 'm': 2 bool bytes neither 0 nor 1: stored as true" "$T/err" ||
	fail "no warning: $(cat "$T/err")"
run ckpt-read --values bo.h5
expect_out '^false true true true$'
cp b.h5 model.weights.h5
tar cf t.tar model.weights.h5
run ckpt-unflatten --template t.tar -o ut.h5 raw
expect_status 0
run ckpt-diff ut.h5 bo.h5
expect_status 0
