# A bundle holds manifest, data and checksum; it is compressed by suffix
# or --compress, survives pipes and decompression, and needs nothing else.
cd "$T"
"$BIN/../tests/mkfixtures" --many 40 m.h5
run ckpt-flatten --bundle -o m.tar m.h5
expect_status 0
[ "$(tar tf m.tar | tr '\n' ' ')" = "manifest.tsv flat.bin flat.crc32 " ] || fail "members: $(tar tf m.tar)"
mkdir x && tar xf m.tar -C x
ckpt-flatten -o plain.bin --manifest plain.tsv m.h5
cmp -s x/flat.bin plain.bin || fail "bundle data differ from the raw stream"
cmp -s x/manifest.tsv plain.tsv || fail "bundle manifest differs"
# the same input gives the same bundle, byte for byte
ckpt-flatten --bundle m.h5 | cmp -s - m.tar || fail "bundle not reproducible"
run ckpt-unflatten -o back.h5 m.tar
expect_status 0
ckpt-diff -q --bitwise m.h5 back.h5 || fail "tar bundle round trip"
# compressed by suffix, and through a pipe as stdin
ckpt-flatten --bundle -o m.tar.gz m.h5
gzip -t m.tar.gz || fail "not gzip"
ckpt-unflatten -o gz.h5 - <m.tar.gz || fail "gzip bundle on stdin"
ckpt-diff -q --bitwise m.h5 gz.h5 || fail "gzip round trip"
# the pipeline of the man page: compress, decompress on the way
ckpt-flatten --bundle --compress gzip m.h5 | gzip -d | ckpt-unflatten -o pipe.h5 - ||
	fail "pipeline"
ckpt-diff -q --bitwise m.h5 pipe.h5 || fail "pipeline round trip"
ckpt-flatten --bundle --compress none m.h5 | gzip | ckpt-unflatten -o pipe2.h5 ||
	fail "gzip by another program"
ckpt-diff -q --bitwise m.h5 pipe2.h5 || fail "gzip pipe round trip"
for c in zstd xz bzip2; do
	ckpt-flatten --bundle --compress $c -o m.$c m.h5 2>err.$c || {
		grep -q "cannot compress" err.$c && continue; fail "$c: $(cat err.$c)"; }
	ckpt-unflatten -o $c.h5 m.$c || fail "$c unreadable"
	ckpt-diff -q --bitwise m.h5 $c.h5 || fail "$c round trip"
done
# a bundle can also fill a template (its layout must agree)
ckpt-unflatten --template m.h5 -o t.h5 m.tar || fail "bundle with template"
ckpt-diff -q --bitwise m.h5 t.h5 || fail "bundle with template"
