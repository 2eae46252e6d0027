# Bad input: one line naming the file, exit 2, no output left behind, an
# existing output untouched.
cd "$T"
echo 'not hdf5' >text.h5
run ckpt-flatten -o out.bin text.h5
expect_error ckpt-flatten 'text.h5: '
run ckpt-flatten -o out.bin missing.h5
expect_error ckpt-flatten 'missing.h5: No such file or directory'
head -c 3000 "$FIX/model.h5" >trunc.h5
run ckpt-flatten --dtype f32 -o out.bin trunc.h5
expect_error ckpt-flatten 'trunc.h5: '
run ckpt-flatten --only 'nothing*' -o out.bin "$FIX/order.h5"
expect_error ckpt-flatten 'order.h5: no numeric variable selected to flatten'
expect_no_file out.bin
# the values of a string variable are not numbers: it is left out
[ "$(ckpt-flatten --size "$FIX/model.h5")" = 16 ] || fail "model.h5 size"
run ckpt-flatten --only labels -o out.bin "$FIX/model.h5"
expect_error ckpt-flatten 'no numeric variable selected'
# no replacing without -f; with -f, replaced whole
echo keep >out.bin
echo keep >m.tsv
run ckpt-flatten -o out.bin "$FIX/order.h5"
expect_error ckpt-flatten 'out.bin: already exists \(use -f to replace it\)'
run ckpt-flatten --manifest m.tsv -o new.bin "$FIX/order.h5"
expect_error ckpt-flatten 'm.tsv: already exists'
expect_no_file new.bin
[ "$(cat out.bin)" = keep ] && [ "$(cat m.tsv)" = keep ] || fail "target changed"
run ckpt-flatten -f --manifest m.tsv -o out.bin "$FIX/order.h5"
expect_status 0
[ "$(wc -c <out.bin)" -eq 20 ] || fail "not replaced"
# values a type cannot hold: saturated (integers), with a warning
run ckpt-flatten --dtype i8 -o i8.bin --only special/f32 "$FIX/dtypes.h5"
expect_status 0
grep -q "variable 'special/f32': 3 values out of the range of int8 (saturated)" err ||
	fail "no range warning: $(cat err)"
[ "$(od -An -t d1 i8.bin | tr -s ' ')" = " 127 -128 0 0 0" ] || fail "i8: $(od -An -t d1 i8.bin)"
