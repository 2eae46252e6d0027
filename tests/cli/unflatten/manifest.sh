# With --manifest the output is a new checkpoint holding the variables the
# manifest lists, in its order, with their dtypes, shapes and groups.
cd "$T"
ckpt-flatten --dtype f64 --manifest m.tsv -o m.bin "$FIX/model.h5"
run ckpt-unflatten --manifest m.tsv -o new.h5 m.bin
expect_status 0
ckpt-read new.h5 | sed 1d >got
ckpt-read --exclude labels --exclude records "$FIX/model.h5" | sed 1d >want
diff want got >/dev/null || fail "listing: $(cat got)"
# flattening the new file gives back the same stream and manifest
ckpt-flatten --dtype f64 --manifest m2.tsv -o m2.bin new.h5
cmp -s m.bin m2.bin && cmp -s m.tsv m2.tsv || fail "second flatten differs"
# names that need escapes, dots and odd bytes survive
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=3\nodd\\tname/a b%%s\tfloat32\t[1]\t0\t1\nnew\\nline\tint16\t[]\t1\t1\n\303\251t\303\251/\\x01\tfloat64\t[1,1]\t2\t1\n' >odd.tsv
printf '\000\000\200\077\000\000\000\100\000\000\100\100' >odd.bin
run ckpt-unflatten --manifest odd.tsv -o odd.h5 odd.bin
expect_status 0
ckpt-flatten --dtype f32 --manifest odd2.tsv -o odd2.bin odd.h5
cmp -s odd.bin odd2.bin || fail "odd values"
tail -n +2 odd.tsv | cut -f1 >want; tail -n +2 odd2.tsv | cut -f1 >got
cmp -s want got || fail "odd names: $(cat got)"
# --dtype overrides what the manifest says the stream holds
ckpt-flatten --dtype f32 -o m32.bin "$FIX/model.h5"
ckpt-unflatten --manifest m.tsv --dtype f32 -o new32.h5 m32.bin || fail "--dtype"
ckpt-diff -q --bitwise new.h5 new32.h5 || fail "f32 stream differs"
# a manifest may come on stdin when the values come from a file
ckpt-unflatten --manifest - -o stdin.h5 m.bin <m.tsv || fail "manifest on stdin"
ckpt-diff -q --bitwise new.h5 stdin.h5 || fail "manifest on stdin"
