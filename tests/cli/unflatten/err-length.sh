# The flat input's length must match exactly: too short, too long or a
# partial value, from a file or a pipe, is exit 2 with both counts, and
# nothing written.
cd "$T"
ckpt-flatten -o ok.bin "$FIX/order.h5"   # 5 float32 values
head -c 16 ok.bin >short.bin
cat ok.bin ok.bin >long.bin
head -c 18 ok.bin >partial.bin
: >empty.bin
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 short.bin
expect_error ckpt-unflatten 'short.bin: flat input has 4 values; the template needs 5$'
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 long.bin
expect_error ckpt-unflatten 'long.bin: flat input has 10 values; the template needs 5$'
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 partial.bin
expect_error ckpt-unflatten 'partial.bin: flat input has 18 bytes, not a whole number of float32 values; the template needs 5 values'
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 empty.bin
expect_error ckpt-unflatten 'flat input has 0 values; the template needs 5'
expect_no_file out.h5
# the same through pipes, where the length is known only at the end
for f in short long partial empty; do
	cat $f.bin | ckpt-unflatten --template "$FIX/order.h5" -o out.h5 >out 2>err
	rc=$?
	expect_error ckpt-unflatten '\(stdin\): flat input has'
	expect_no_file out.h5
done
cat long.bin | ckpt-unflatten --template "$FIX/order.h5" -o out.h5 2>err
grep -q 'flat input has 10 values; the template needs 5' err || fail "pipe: $(cat err)"
# the wrong --dtype shows as a wrong length
run ckpt-unflatten --dtype f64 --template "$FIX/order.h5" -o out.h5 ok.bin
expect_error ckpt-unflatten 'ok.bin: flat input has 2 values, .*|flat input has 20 bytes, not a whole number of float64 values'
# an existing output stays as it was
echo keep >out.h5
run ckpt-unflatten -f --template "$FIX/order.h5" -o out.h5 short.bin
expect_error ckpt-unflatten 'flat input has 4 values'
[ "$(cat out.h5)" = keep ] || fail "target changed"
