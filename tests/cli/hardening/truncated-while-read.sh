# An input truncated by another program while it is read (a slab read at
# its offset comes back short): one line naming the file (control bytes
# escaped), exit 2, no temporary.
serial_case
not_under_valgrind
need_h5py
"$PY" -c '
import h5py, numpy as np
with h5py.File("big.h5", "w") as f:
    f["w"] = np.arange(4 << 20, dtype="f4")' || fail "cannot make the input"
mkfifo p
nl=$(printf 'b\nig.h5')
mv big.h5 "$nl"
"$REALBIN"/ckpt-read --values "$nl" >p 2>err & pid=$!
exec 3<p
head -c 1000 <&3 >/dev/null    # it is reading now, and blocks on the pipe
truncate -s 4096 "$nl"
cat <&3 >/dev/null
exec 3<&-
wait $pid; rc=$?
[ $rc -eq 2 ] || fail "status $rc, expected 2; stderr: $(cat err)"
[ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
grep -q '^ckpt-read: b\\nig.h5: the file shrank while being read' err || fail "message: $(cat err)"
rm -f "$nl"
# the same in a program that writes: the temporary is removed
"$PY" -c '
import h5py, numpy as np
with h5py.File("big.h5", "w") as f:
    f["w"] = np.arange(16 << 20, dtype="f4")' || fail "cannot make the input"
"$REALBIN"/ckpt-average -o out.h5 big.h5 big.h5 2>err & pid=$!
i=0
while [ ! -e .out.h5.* ] 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.01; done
truncate -s 4096 big.h5
wait $pid; rc=$?
case $rc in
0) ;; # it had read everything already: nothing to check
2) [ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)" ;;
*) fail "ckpt-average: status $rc: $(cat err)" ;;
esac
rm -f big.h5
expect_no_file
