# Unreadable inputs, a corrupt archive member, a missing output directory:
# one line, exit 2, the target untouched.
cd "$T"
ckpt-train -q --steps 0 -o a.h5
cp a.h5 keep.h5
run ckpt-average -f -o keep.h5 a.h5 nope.h5
expect_error ckpt-average "nope.h5: No such file"
cmp -s keep.h5 a.h5 || fail "target changed"
head -c 1500 a.h5 >cut.h5
tar cf bad.tar a.h5 cut.h5
run ckpt-average -o x.h5 bad.tar
expect_error ckpt-average "bad.tar:cut.h5: damaged or truncated"
if command -v gzip >/dev/null; then
	head -c 3000 bad.tar | gzip >trunc.tar.gz
	run ckpt-average -o x.h5 trunc.tar.gz
	expect_error ckpt-average "trunc.tar.gz"
fi
printf 'not a checkpoint\n' >text.txt
run ckpt-average -o x.h5 a.h5 text.txt
expect_error ckpt-average "text.txt: not an HDF5 or safetensors file"
tar cf none.tar text.txt
run ckpt-average -o x.h5 none.tar
expect_error ckpt-average "none.tar: the archive holds no checkpoint"
run ckpt-average -o no/such/dir/x.h5 a.h5
expect_error ckpt-average "x.h5: cannot create a file there: No such file"
rm -f keep.h5 a.h5 cut.h5 bad.tar trunc.tar.gz text.txt none.tar
expect_no_file x.h5
