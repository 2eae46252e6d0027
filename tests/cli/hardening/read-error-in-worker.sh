# A read that fails in the worker thread (it reads inputs beside the main
# thread where every input is read in place): one line naming the file and
# the error, exit 2, no output - in the mean, in a merge method's measuring
# passes (TIES) and in its one pass (task arithmetic), on the variables of
# many slabs.  The worker's first read fails (tests/faults/shim.c), the
# main thread's reads slowed so that the worker reads some; where it read
# none all the same the program succeeds instead, and at least one of the
# runs must have met the fault.
serial_case
not_under_valgrind
SHIM="$REALBIN/../tests/faultshim.so"
[ -f "$SHIM" ] || skip "no fault shim (make build/tests/faultshim.so)"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
cd "$T"
for i in 0 1 2 3; do
	"$BIN/../tests/mkbench" $i m$i.h5 0.05 || fail mkbench
done
met=0
for args in "" "--method ties --density 0.3 --base m0.h5" \
            "--method task-arithmetic --base m0.h5"; do
	rm -f fired
	# shellcheck disable=SC2086
	LD_PRELOAD="$SHIM" CKPT_FAULT_OFF_MAIN=1 CKPT_FAULT_FAIL=pread:1:EIO \
		CKPT_FAULT_SLOW_MAIN=30000 CKPT_FAULT_LOG="$T/fired" \
		"$REALBIN"/ckpt-average -q --only 'embed/*' $args -o out.h5 \
		m1.h5 m2.h5 m3.h5 2>err
	rc=$?
	if [ -e fired ]; then
		met=$((met + 1))
		[ $rc -eq 2 ] || fail "${args:-mean}: status $rc, expected 2: $(cat err)"
		[ "$(wc -l <err)" -eq 1 ] || fail "${args:-mean}: not one line: $(cat err)"
		grep -q '^ckpt-average: m[0-3]\.h5: Input/output error' err ||
			fail "${args:-mean}: message: $(cat err)"
		expect_no_file out.h5
	else
		[ $rc -eq 0 ] || fail "${args:-mean}: status $rc without the fault: $(cat err)"
		rm -f out.h5
	fi
done
[ $met -gt 0 ] || fail "no run's worker read a slab"
