# What an output does to its target and when: a replaced target keeps its
# permissions (a private checkpoint stays private); a new one gets the
# umask's; the signals batch schedulers send remove the temporary; -q with
# a closed stdout is no error, and a program that fails committed nothing.
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
# signals: the temporary goes, the target stays absent
need_h5py
"$PY" -c '
import h5py, numpy as np
with h5py.File("big.h5", "w") as f:
    f.create_dataset("w", data=np.arange(32 << 20, dtype="f4"), compression="gzip")' ||
	fail "cannot make the input"
for sig in QUIT USR1 USR2 ALRM XCPU XFSZ TERM; do
	"$REALBIN"/ckpt-average -q -o s.h5 big.h5 big.h5 & pid=$!
	i=0
	while ! ls .s.h5.* >/dev/null 2>&1 && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.01; done
	kill -s $sig $pid
	wait $pid
	[ ! -e s.h5 ] || rm -f s.h5  # it may have finished first
	ls .s.h5.* >/dev/null 2>&1 && fail "SIG$sig left the temporary"
done
rm -f big.h5
# -q and a closed stdout
run sh -c 'ckpt-average -q -o c.h5 "$1" "$1" >&-' sh "$FIX/order.h5"
expect_status 0
[ -e c.h5 ] || fail "no output"
run sh -c 'ckpt-diff -q "$1" "$1" >&-' sh "$FIX/order.h5"
expect_status 0
# empty weights name their position
run ckpt-average -w 1,,1 -o w.h5 "$FIX/order.h5" "$FIX/order.h5" "$FIX/order.h5"
expect_error ckpt-average '-w: weight 2 is empty'
run ckpt-average -w ,1 -o w.h5 "$FIX/order.h5" "$FIX/order.h5"
expect_error ckpt-average '-w: weight 1 is empty'
# a name with a newline: one line, escaped
run ckpt-read "$(printf 'no\nsuch.h5')"
expect_error ckpt-read 'no\\nsuch.h5: No such file'
expect_no_file w.h5 s.h5
