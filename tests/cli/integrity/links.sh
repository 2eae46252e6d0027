# -o naming a symbolic link: the file it points to is written (replaced
# with -f, atomically), the link stays a link; a link to nothing is
# refused; /dev/stdout and other names of open descriptors are written
# into, never replaced.  Soft, external and dangling links of the input
# are copied as links.
cp "$FIX/model.h5" real.h5
ln -s real.h5 link.h5
run ckpt-average -o link.h5 "$FIX/order.h5"
expect_error ckpt-average 'link.h5: already exists'
run ckpt-average -f -o link.h5 "$FIX/order.h5"
expect_status 0
[ -L link.h5 ] || fail "the link was replaced by a file"
ckpt-diff -q --bitwise real.h5 "$FIX/order.h5" || fail "the link's target was not written"
ln -s nowhere.h5 dangling.h5
run ckpt-average -f -o dangling.h5 "$FIX/order.h5"
expect_error ckpt-average 'dangling.h5: a symbolic link to nothing'
[ -L dangling.h5 ] && [ ! -e nowhere.h5 ] || fail "dangling link touched"
ckpt-average -f -q -o /dev/stdout "$FIX/order.h5" >viastdout.h5 || fail "-o /dev/stdout"
ckpt-diff -q --bitwise viastdout.h5 "$FIX/order.h5" || fail "-o /dev/stdout: wrong content"
ckpt-average -q -o /dev/stdout "$FIX/order.h5" | ckpt-read -q - >/dev/null ||
	fail "-o /dev/stdout into a pipe"
expect_no_file
