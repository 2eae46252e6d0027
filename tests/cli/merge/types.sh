# Shapes must match (both named); dtypes too, unless --cast converts them
# (rounding to nearest even, with a warning for values out of range).
cd "$T"
ckpt-train -q --steps 0 --features 3 -o base.h5
ckpt-train -q --steps 3 --features 2 -o other.h5
run ckpt-merge -o out.h5 base.h5 other.h5
expect_error ckpt-merge "other.h5: variable 'w' has shape \[1,2\], .*base.h5 has \[1,3\]"
expect_no_file out.h5
ckpt-train -q --steps 3 --features 3 -o f32.h5
ckpt-flatten --dtype f64 --manifest m.tsv -o f64.bin f32.h5
ckpt-unflatten --manifest m.tsv --dtype f64 -o f64.h5 f64.bin   # stored float32
sed '2,$s/float32/float64/' m.tsv >m64.tsv
ckpt-unflatten --manifest m64.tsv -o f64.h5 f64.bin -f          # stored float64
run ckpt-merge -o out.h5 base.h5 f64.h5
expect_error ckpt-merge "f64.h5: variable 'w' is float64, .*base.h5 has float32 \(--cast converts\)"
run ckpt-merge --cast -o out.h5 base.h5 f64.h5
expect_status 0
ckpt-diff -q --bitwise out.h5 f32.h5 || fail "--cast values"
ckpt-read out.h5 | grep -q '^w  *float32' || fail "dtype not BASE's"
# out of range: saturated with a warning
ckpt-flatten --dtype i8 --manifest m8.tsv -o i8.bin f32.h5
sed '2,$s/float32/int8/' m8.tsv >i8.tsv
ckpt-unflatten --manifest i8.tsv -o i8.h5 i8.bin
ckpt-average -q --no-normalize -w 1000 --dtype f32 -o huge.h5 f32.h5
run ckpt-merge --cast -o sat.h5 i8.h5 huge.h5
expect_status 0
grep -q "variable 'w': [0-9]* values* out of the range of int8 (saturated)" err || fail "no warning: $(cat err)"
# non-numeric variables (strings, compounds) are replaced by the same type
run ckpt-merge -q -o m.h5 "$FIX/model.h5" "$FIX/model.h5"
expect_status 0
ckpt-diff -q --bitwise m.h5 "$FIX/model.h5" || fail "model.h5 with itself"
