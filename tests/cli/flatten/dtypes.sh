# Every dtype: a variable's own values round-trip exactly, and mixed types
# need --dtype (one clear message otherwise).
# (Not under valgrind, where its 48 runs take two minutes: every dtype of
# the file is read there by read/values and copied by merge/shards, and the
# flat vector's conversions run in flatten/raw and flatten/lossy.)
not_under_valgrind
cd "$T"
run ckpt-flatten -o all.bin "$FIX/dtypes.h5"
expect_error ckpt-flatten "dtypes.h5: the variables are of several types \(bfloat16, bool, \.\.\.\); choose the flat vector's with --dtype"
expect_no_file all.bin
for v in $(ckpt-read --names "$FIX/dtypes.h5"); do
	f=$(echo "$v" | tr / _)
	ckpt-flatten --only "$v" -o "$f.bin" "$FIX/dtypes.h5" || fail "$v: flatten"
	ckpt-unflatten --only "$v" --template "$FIX/dtypes.h5" -o "$f.h5" "$f.bin" || fail "$v: unflatten"
	ckpt-diff -q --bitwise "$FIX/dtypes.h5" "$f.h5" || fail "$v: differs after the round trip"
	rm -f "$f.bin"
done
# the same through float64 for the types float64 holds exactly
ckpt-flatten --dtype f64 --exclude '*int64' -o f64.bin "$FIX/dtypes.h5"
ckpt-unflatten --dtype f64 --exclude '*int64' --template "$FIX/dtypes.h5" -o f64.h5 f64.bin
ckpt-diff -q --bitwise "$FIX/dtypes.h5" f64.h5 || fail "through float64"
