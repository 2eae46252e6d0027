# Conversions that change values are never silent - one rule for
# ckpt-flatten --dtype, ckpt-average --dtype, ckpt-merge --cast and
# ckpt-unflatten: one warning for the run, with how many values in how
# many variables, and the first (int64 beyond 2^53 as float64 was rounded
# without a word).  Conversions
# that keep every value say nothing; -q silences the warning.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import h5py, numpy as np
with h5py.File("i.h5", "w") as f:
    f["a"] = np.array([5, 2**53 + 1, 2**60 + 3], "i8")
    f["b"] = np.array([1.5, 0.1], "f8")
    f["c"] = np.array([1, 2], "i8")
with h5py.File("base.h5", "w") as f:
    f["a"] = np.zeros(3, "f8")
    f["b"] = np.zeros(2, "f2")
    f["c"] = np.zeros(2, "i8")
PY
run ckpt-flatten --dtype f64 -o f64.bin i.h5
expect_status 0
grep -q "^ckpt-flatten: the conversion changed 2 values in 1 variable (first: 'a' \[1\]: int64 9007199254740993 became float64 9007199254740992)$" "$T/err" ||
	fail "flatten --dtype f64: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "more than one line: $(cat "$T/err")"
run ckpt-flatten --dtype f32 -o f32.bin i.h5
expect_status 0
grep -q "changed 3 values in 2 variables (first: 'a' \[1\]" "$T/err" || fail "flatten --dtype f32: $(cat "$T/err")"
run ckpt-flatten -q --dtype f32 -o q.bin i.h5
expect_status 0
expect_quiet_stderr
# exact conversions: nothing to say
run ckpt-flatten --dtype f64 --only c -o c.bin i.h5
expect_status 0
expect_quiet_stderr
# merge --cast into the base's float64 and float16
run ckpt-merge --cast -o m.h5 base.h5 i.h5
expect_status 0
grep -q "^ckpt-merge: the conversion changed 3 values in 2 variables (first: 'a' \[1\]: int64 9007199254740993 became float64 9007199254740992)$" "$T/err" ||
	fail "merge --cast: $(cat "$T/err")"
# unflatten: float64 values into int64 variables
"$PY" -c 'import numpy as np; np.array([1, 2.5, 3, 1.5, 0.25, 7.5, 8], "f8").tofile("v.bin")' || fail numpy
run ckpt-unflatten --dtype f64 --template i.h5 -o u.h5 v.bin
expect_status 0
grep -q "^ckpt-unflatten: the conversion changed 2 values in 2 variables (first: 'a' \[1\]: float64 2.5 became int64 2)$" "$T/err" ||
	fail "unflatten: $(cat "$T/err")"
# ckpt-average --dtype: the stored mean against the mean in the inputs' type
run ckpt-average --dtype f64 -o avg.h5 i.h5 i.h5
expect_status 0
grep -q "^ckpt-average: the conversion changed 2 values in 1 variable (first: 'a' \[1\]: int64 9007199254740993 became float64 9007199254740992)$" "$T/err" ||
	fail "average --dtype: $(cat "$T/err")"
run ckpt-average --dtype f64 --only b -o avg2.h5 i.h5 i.h5
expect_status 0
expect_quiet_stderr
