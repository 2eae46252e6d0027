# The flat vector is the variables' values in order, each in C order, of
# their common type; --manifest says where each lies; --size counts.
cd "$T"
ckpt-train -q --steps 3 --features 3 -o m.h5
run ckpt-flatten --size m.h5
expect_status 0
[ "$(cat out)" = 4 ] || fail "size: $(cat out)"
run ckpt-flatten --manifest m.tsv -o flat.bin m.h5
expect_status 0
expect_quiet_stderr
[ "$(wc -c <flat.bin)" -eq 16 ] || fail "flat.bin has $(wc -c <flat.bin) bytes"
printf '#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=4\nw\tfloat32\t[1,3]\t0\t3\nb\tfloat32\t[1]\t3\t1\n' >want.tsv
cmp -s m.tsv want.tsv || fail "manifest: $(cat m.tsv)"
# stdout into a pipe is the same stream; so is stdin as input
ckpt-flatten m.h5 | cmp -s - flat.bin || fail "stdout differs from -o"
ckpt-flatten - <m.h5 | cmp -s - flat.bin || fail "stdin input differs"
# --dtype converts (float64: twice the bytes, the same values)
ckpt-flatten --dtype f64 -o f64.bin m.h5
[ "$(wc -c <f64.bin)" -eq 32 ] || fail "f64.bin has $(wc -c <f64.bin) bytes"
ckpt-unflatten --dtype f64 --template m.h5 -o back.h5 f64.bin
ckpt-diff -q --bitwise m.h5 back.h5 || fail "f32 -> f64 -> f32 is not exact"
# --only/--exclude flatten a subset; -v says what was written
run ckpt-flatten -v --only b -o b.bin m.h5
expect_status 0
grep -q '1 variable, 1 float32 values (4 bytes)' err || fail "verbose: $(cat err)"
tail -c 4 flat.bin | cmp -s - b.bin || fail "--only b"
[ "$(ckpt-flatten --size --exclude b m.h5)" = 3 ] || fail "--exclude"
# --strip-prefix/--add-prefix rename in the manifest
ckpt-train -q --steps 0 --prefix tower_1 -o p.h5
ckpt-flatten --strip-prefix tower_1/ --add-prefix net/ --manifest p.tsv -o /dev/null p.h5
cut -f1 p.tsv | tail -n +2 | tr '\n' ' ' | grep -qx 'net/w net/b ' || fail "names: $(cat p.tsv)"
