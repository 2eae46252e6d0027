# --big-endian writes each value's bytes reversed; unflatten reads them
# back the same way, and a manifest records the byte order.
cd "$T"
ckpt-flatten --dtype f64 -o le.bin "$FIX/model.h5"
ckpt-flatten --dtype f64 --big-endian --manifest be.tsv -o be.bin "$FIX/model.h5"
head -n 1 be.tsv | grep -q 'byteorder=big' || fail "manifest: $(head -n 1 be.tsv)"
od -An -v -t x1 -w8 le.bin | awk '{ for (i = 8; i >= 1; i--) printf " %s", $i; print "" }' >want
od -An -v -t x1 -w8 be.bin >got
cmp -s want got || fail "not byte-reversed"
ckpt-unflatten --dtype f64 --big-endian --template "$FIX/model.h5" -o back.h5 be.bin
ckpt-diff -q --bitwise "$FIX/model.h5" back.h5 || fail "template round trip"
ckpt-unflatten --manifest be.tsv -o new.h5 be.bin
ckpt-diff -q --bitwise --exclude labels --exclude records "$FIX/model.h5" new.h5 ||
	fail "manifest round trip"
