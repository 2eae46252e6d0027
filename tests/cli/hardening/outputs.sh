# What an output does to its target and when: a replaced target keeps its
# permissions (a private checkpoint stays private); a new one gets the
# umask's; -q with a closed stdout is no error; empty weights and names
# with control bytes give one clear line.
cp "$FIX/order.h5" ema.h5
chmod 600 ema.h5
run ckpt-average -f -w 0.9,0.1 -o ema.h5 ema.h5 "$FIX/order.h5"
expect_status 0
[ "$(stat -c %a ema.h5)" = 600 ] || fail "mode became $(stat -c %a ema.h5)"
chmod 640 ema.h5
run ckpt-merge -f -o ema.h5 ema.h5 "$FIX/order.h5"
[ "$(stat -c %a ema.h5)" = 640 ] || fail "merge: mode became $(stat -c %a ema.h5)"
(umask 027 && ckpt-average -q -o new.h5 "$FIX/order.h5") || fail "new"
[ "$(stat -c %a new.h5)" = 640 ] || fail "new file: mode $(stat -c %a new.h5)"
# -q and a closed stdout
run sh -c 'ckpt-average -q -o c.h5 "$1" "$1" >&-' sh "$FIX/order.h5"
expect_status 0
[ -e c.h5 ] || fail "no output"
run sh -c 'ckpt-diff -q "$1" "$1" >&-' sh "$FIX/order.h5"
expect_status 0
# empty weights name their position
run ckpt-average -w 1,,1 -o w.h5 "$FIX/order.h5" "$FIX/order.h5" "$FIX/order.h5"
expect_usage_error ckpt-average '-w: weight 2 is empty'
run ckpt-average -w ,1 -o w.h5 "$FIX/order.h5" "$FIX/order.h5"
expect_usage_error ckpt-average '-w: weight 1 is empty'
run ckpt-average -w 1e-400,1 -o w.h5 "$FIX/order.h5" "$FIX/order.h5"
expect_usage_error ckpt-average '-w: 1e-400 is out of the range of a double'
# a name with a newline: one line, escaped
run ckpt-read "$(printf 'no\nsuch.h5')"
expect_error ckpt-read 'no\\nsuch.h5: No such file'
expect_no_file w.h5
# -o - builds its file in $TMPDIR: a missing one is named as such (not
# under valgrind, which needs a TMPDIR of its own)
if [ -z "${CKPT_VALGRIND:-}" ]; then
	run env TMPDIR="$T/nonexistent" "$REALBIN/ckpt-average" -o - "$FIX/order.h5" "$FIX/order.h5"
	expect_error ckpt-average "\(stdout\): cannot create a temporary file in .*/nonexistent \(TMPDIR\): No such file"
fi
