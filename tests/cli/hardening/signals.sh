# Every signal a terminal, shell or batch scheduler sends to end a program
# (SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ, SIGTERM) removes the
# temporary; the target stays absent.
serial_case
not_under_valgrind
need_h5py
"$PY" -c '
import h5py, numpy as np
with h5py.File("big.h5", "w") as f:
    f.create_dataset("w", data=np.arange(16 << 20, dtype="f4"), compression="gzip")' ||
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
expect_no_file s.h5
