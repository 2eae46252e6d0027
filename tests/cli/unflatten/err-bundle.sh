# Damaged bundles: a bad checksum, a missing or extra member, a truncated
# archive, data of the wrong size: one line, exit 2, nothing written.
cd "$T"
"$BIN/../tests/mkfixtures" --many 5 m.h5
ckpt-flatten --bundle -o b.tar m.h5
mkdir x && tar xf b.tar -C x
remake() { # remake NAME MEMBER...: a tar of the members, in that order
	out=$1; shift
	(cd x && tar cf "../$out" "$@")
}
# one byte of the data changed
cp x/flat.bin keep.bin
printf '\001' | dd of=x/flat.bin bs=1 seek=3 conv=notrunc 2>/dev/null
remake crc.tar manifest.tsv flat.bin flat.crc32
cp keep.bin x/flat.bin
run ckpt-unflatten -o out.h5 crc.tar
expect_error ckpt-unflatten "crc.tar: bundle's data do not match its checksum"
remake nocrc.tar manifest.tsv flat.bin
run ckpt-unflatten -o out.h5 nocrc.tar
expect_error ckpt-unflatten "nocrc.tar: bundle ends before its member 'flat.crc32'"
remake nodata.tar manifest.tsv flat.crc32
run ckpt-unflatten -o out.h5 nodata.tar
expect_error ckpt-unflatten "bundle member 'flat.crc32' where 'flat.bin' was expected"
remake order.tar flat.bin manifest.tsv flat.crc32
run ckpt-unflatten -o out.h5 order.tar
expect_error ckpt-unflatten "bundle member 'flat.bin' where 'manifest.tsv' was expected"
echo extra >x/extra
remake extra.tar manifest.tsv flat.bin flat.crc32 extra
run ckpt-unflatten -o out.h5 extra.tar
expect_error ckpt-unflatten "unexpected bundle member 'extra' after the checksum"
head -c 70 x/flat.bin >x/short && mv x/short x/flat.bin
remake size.tar manifest.tsv flat.bin flat.crc32
run ckpt-unflatten -o out.h5 size.tar
expect_error ckpt-unflatten "size.tar: bundle's flat.bin has 70 bytes; its manifest's [0-9]+ float32 values need"
cp keep.bin x/flat.bin
printf 'oops\n' >x/manifest.tsv
remake manifest.tar manifest.tsv flat.bin flat.crc32
run ckpt-unflatten -o out.h5 manifest.tar
expect_error ckpt-unflatten "manifest.tar:manifest.tsv: not a ckpt-flat manifest"
# truncated anywhere: in the manifest, in the data, in the checksum
size=$(wc -c <b.tar)
for n in 600 1100 $((size / 2)) $((size - 1100)); do
	head -c $n b.tar >t.tar
	run ckpt-unflatten -o out.h5 t.tar
	expect_error ckpt-unflatten "t.tar: "
done
ckpt-flatten --bundle -o b.tar.gz m.h5
head -c $(($(wc -c <b.tar.gz) - 30)) b.tar.gz >t.tar.gz
run ckpt-unflatten -o out.h5 t.tar.gz
expect_error ckpt-unflatten "t.tar.gz: "
# gzip of something that is not a tar
echo hello | gzip >notar.gz
run ckpt-unflatten -o out.h5 notar.gz
expect_error ckpt-unflatten "notar.gz: "
# a bundle says what it holds
run ckpt-unflatten --dtype f64 -o out.h5 b.tar
expect_error ckpt-unflatten "b.tar: a bundle says what it holds; --dtype and --big-endian are for raw input"
# a template that does not fit the bundle
run ckpt-unflatten --template "$FIX/order.h5" -o out.h5 b.tar
expect_error ckpt-unflatten "the bundle's manifest lists variable"
expect_no_file out.h5
