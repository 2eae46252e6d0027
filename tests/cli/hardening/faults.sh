# Faults: SIGKILL at random moments never leaves a partial file at the
# target name; two writers of one target leave one whole result; a full or
# read-only file system is a clear error; a closed pipe ends the program by
# SIGPIPE (status 141 in the shell, documented in ckpt(7)); a write error on
# standard output is reported.
serial_case
not_under_valgrind
cd "$T"
"$BIN/../tests/mkbench" 1 a.h5 0.05 || fail mkbench
"$BIN/../tests/mkbench" 2 b.h5 0.05 || fail mkbench
ckpt-average -q -o ab.h5 a.h5 b.h5
ckpt-average -q -o aa.h5 a.h5 a.h5
ckpt-flatten -o ab.bin ab.h5

# SIGKILL in a loop, at random moments (awk's rand, seeded by the loop)
i=0
while [ $i -lt 12 ]; do
	i=$((i + 1))
	delay=$(awk -v s=$i 'BEGIN { srand(s); printf "%.3f", rand() * 0.15 }')
	case $((i % 5)) in
	0) "$REALBIN"/ckpt-average -q -f -o t.h5 a.h5 b.h5 & want=ab.h5 ;;
	1) "$REALBIN"/ckpt-merge -q -f -o t.h5 a.h5 ab.h5 & want=ab.h5 ;;
	2) "$REALBIN"/ckpt-unflatten -q -f --template a.h5 -o t.h5 ab.bin & want=ab.h5 ;;
	3) "$REALBIN"/ckpt-flatten -f -o t.bin ab.h5 & want=ab.bin ;;
	4) "$REALBIN"/ckpt-average -q -f -o t.index a.h5 b.h5 & want=ab.index ;;
	esac
	pid=$!
	sleep "$delay"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ $want = ab.bin ]; then
		[ ! -e t.bin ] || cmp -s t.bin ab.bin || fail "kill $i after ${delay}s: t.bin partial"
	elif [ $want = ab.index ]; then
		[ ! -e t.index ] || ckpt-diff -q --bitwise t.index ab.h5 ||
			fail "kill $i after ${delay}s: the bundle t partial or corrupt"
	else
		[ ! -e t.h5 ] || ckpt-diff -q --bitwise t.h5 ab.h5 ||
			fail "kill $i after ${delay}s: t.h5 partial or corrupt"
	fi
	rm -f .t.h5.* .t.bin.* .t.index.* .t.data-*  # a killed program cannot remove its temporary
done

# two writers of one target at once: one result, whole
i=0
while [ $i -lt 4 ]; do
	i=$((i + 1))
	ckpt-average -q -f -o w.h5 a.h5 b.h5 & p1=$!
	ckpt-average -q -f -o w.h5 a.h5 a.h5 & p2=$!
	wait $p1 $p2
	ckpt-diff -q --bitwise w.h5 ab.h5 || ckpt-diff -q --bitwise w.h5 aa.h5 ||
		fail "two writers: a mixture"
	# without -f, the second to finish fails and the first result stays whole
	rm -f n.h5
	ckpt-average -q -o n.h5 a.h5 b.h5 2>/dev/null & p1=$!
	ckpt-average -q -o n.h5 a.h5 a.h5 2>/dev/null & p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	[ $((r1 + r2)) -eq 2 ] || fail "no -f: exit statuses $r1 and $r2"
	ckpt-diff -q --bitwise n.h5 ab.h5 || ckpt-diff -q --bitwise n.h5 aa.h5 ||
		fail "no -f: a mixture"
done

# a write error on standard output is reported, not ignored
if [ -w /dev/full ]; then
	run sh -c 'ckpt-read --values a.h5 >/dev/full'
	expect_error ckpt-read 'write error'
	run sh -c 'ckpt-flatten a.h5 >/dev/full'
	expect_error ckpt-flatten '(stdout|/dev/full).*No space left'
	run sh -c 'ckpt-diff -n 5 a.h5 b.h5 >/dev/full'
	expect_error ckpt-diff 'write error'
fi

# a closed pipe: SIGPIPE, no message, no temporary
mkfifo p
"$REALBIN"/ckpt-read --values a.h5 >p 2>err & pid=$!
head -c 10 <p >/dev/null
wait $pid; rc=$?
[ $rc -eq 141 ] || fail "ckpt-read into a closed pipe: status $rc"
[ ! -s err ] || fail "stderr: $(cat err)"
"$REALBIN"/ckpt-flatten a.h5 >p 2>err & pid=$!
head -c 10 <p >/dev/null
wait $pid; rc=$?
[ $rc -eq 141 ] || fail "ckpt-flatten into a closed pipe: status $rc"

# a full file system and a read-only one (where a tmpfs can be mounted)
mkdir fs ro
if mount -t tmpfs -o size=300k tmpfs fs 2>/dev/null; then
	trap 'umount "$T/fs" 2>/dev/null; umount "$T/ro" 2>/dev/null' EXIT
	echo old >fs/t
	for cmd in "ckpt-flatten -f -o fs/t ab.h5" "ckpt-unflatten -f --template a.h5 -o fs/t ab.bin" \
	           "ckpt-merge -f -o fs/t a.h5 b.h5" "ckpt-flatten -f --bundle -o fs/t ab.h5"; do
		run $cmd
		expect_error "${cmd%% *}" 'fs/t'
		[ "$(cat fs/t)" = old ] || fail "$cmd: target changed"
		[ "$(ls -A fs)" = t ] || fail "$cmd: left $(ls -A fs)"
	done
	if mount -t tmpfs -o ro,size=100k tmpfs ro 2>/dev/null; then
		for cmd in "ckpt-flatten -o ro/t ab.h5" "ckpt-merge -o ro/t a.h5 b.h5" \
		           "ckpt-average -o ro/t a.h5" "ckpt-merge --split 2 -o ro/s%d a.h5"; do
			run $cmd
			expect_error "${cmd%% *}" 'ro/.*Read-only file system'
		done
	fi
fi
