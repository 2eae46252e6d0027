# With --template the output is the template with its numeric variables
# set from the flat vector: groups, attributes, the other variables,
# dtypes and storage kept.
cd "$T"
ckpt-flatten --dtype f64 -o model.bin "$FIX/model.h5"
run ckpt-unflatten --dtype f64 --template "$FIX/model.h5" -o back.h5 model.bin
expect_status 0
expect_quiet_stderr
h5diff "$FIX/model.h5" back.h5 >h5diff.out 2>&1 || fail "h5diff: $(cat h5diff.out)"
ckpt-diff -q --bitwise "$FIX/model.h5" back.h5 || fail "values differ"
# scalars, empty variables, nested groups, order: model.h5 and order.h5
ckpt-flatten -o order.bin "$FIX/order.h5"
ckpt-unflatten --template "$FIX/order.h5" -o order.h5 - <order.bin || fail "stdin"
[ "$(ckpt-read --names order.h5)" = "$(ckpt-read --names "$FIX/order.h5")" ] || fail "order"
ckpt-diff -q --bitwise "$FIX/order.h5" order.h5 || fail "order.h5 values"
# new values land where they belong, converted to each variable's dtype
printf '\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100\000\000\240\100' >five.bin
ckpt-unflatten --template "$FIX/order.h5" -o five.h5 five.bin
ckpt-read --values five.h5 | grep -v '\[' | tr -s '\n' ' ' >got
[ "$(cat got)" = "1 2 3 4 5 5 variables, 5 parameters, 20 bytes " ] ||
	fail "values: $(ckpt-read --values five.h5)"
# storage settings of the template are kept (chunked + compressed)
"$BIN/../tests/mkfixtures" --many 3 many.h5
h5repack -f GZIP=4 -l CHUNK=2 many.h5 gz.h5 2>/dev/null || skip "h5repack missing"
ckpt-flatten -o gz.bin gz.h5
ckpt-unflatten --template gz.h5 -o gz2.h5 gz.bin
h5dump -p -H gz2.h5 | grep -q 'DEFLATE' || fail "compression lost"
ckpt-diff -q --bitwise gz.h5 gz2.h5 || fail "chunked values"
# -o - writes HDF5 to a pipe
ckpt-unflatten --template "$FIX/order.h5" -o - order.bin | ckpt-read --names - >names ||
	fail "-o -"
[ "$(wc -l <names)" -eq 5 ] || fail "names: $(cat names)"
