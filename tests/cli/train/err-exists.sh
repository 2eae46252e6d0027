# An existing output is replaced only with -f; it is untouched otherwise.
ckpt-train -q --steps 1 -o "$T/m.h5"
cp "$T/m.h5" "$T/before"
run ckpt-train -q --steps 2 -o "$T/m.h5"
expect_error ckpt-train "m.h5: already exists \(use -f"
cmp -s "$T/m.h5" "$T/before" || fail "target changed"
run ckpt-train -q -f --steps 2 -o "$T/m.h5"
expect_status 0
! cmp -s "$T/m.h5" "$T/before" || fail "not replaced"
run ckpt-train -q --steps 2 -o "$T/no/such/dir/m.h5"
expect_error ckpt-train "cannot create a file there"
rm -f "$T/before"
expect_no_file
