#!/bin/sh
# tests/run.sh BUILD_DIR [PATTERN] - run every cmocka unit test and every
# CLI case (or, with PATTERN, only the CLI cases whose name matches it, as
# 'integrity/*'); the last line is "N passed, N failed, N skipped".  Exit 1
# if any failed.
B=${1:-build}
only=${2:-}
top=$(pwd)
# (absolute: the cases run in their own directories; a build directory
# may be given either way)
B=$(cd "$B" 2>/dev/null && pwd) || { echo "${1:-build}: no such build directory"; exit 2; }
pass=0 fail=0 skip=0
failed=""
# how long each binary and case took, slowest first, for keeping CI short
times="$(cd "$B" && pwd)/test-times${CKPT_VALGRIND:+-valgrind}.txt"
: >"$times.new"
now() { date +%s%N | cut -c1-13; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-tests.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 2' INT TERM # (through the EXIT trap: a stopped run leaves nothing)

# CKPT_VALGRIND=1: every program run by the CLI cases runs under valgrind's
# memcheck (through wrappers in place of the programs); any memory error is
# a failure, and so is a definite leak in a run that succeeded (a program
# stopping on an error exits at once, by design, holding what it held).
# Cases too slow for it say so and skip.
bin="$B/bin"
if [ -n "${CKPT_VALGRIND:-}" ]; then
	command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 2; }
	bin="$work/vg/bin"
	mkdir -p "$bin" "$work/vg/log"
	ln -s "$B/tests" "$work/vg/tests"
	for p in "$B"/bin/ckpt-*; do
		cat >"$bin/${p##*/}" <<-WRAP
		#!/bin/sh
		log="$work/vg/log/\$\$"
		valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \\
		    --errors-for-leak-kinds=none --log-file="\$log" "$p" "\$@"
		rc=\$?
		if [ \$rc -ne 0 ] && [ \$rc -ne 99 ] && ! grep -Eq \\
		    'Invalid|uninitialised|Conditional jump|Mismatched|overlap|Syscall param' "\$log"; then
		    rm -f "\$log"
		fi
		exit \$rc
		WRAP
		chmod +x "$bin/${p##*/}"
	done
fi

# Every program the CLI cases run goes through tests/guard.sh, which fails
# the case when a program changed one of its inputs.  Cases that signal a
# program by its pid call the programs in $REALBIN directly.
realbin=$bin
bin="$work/guard/bin"
mkdir -p "$bin"
ln -s "$B/tests" "$work/guard/tests"
for p in "$realbin"/ckpt-*; do
	printf '#!/bin/sh\nexec sh "%s/tests/guard.sh" "%s" "$@"\n' "$top" "$p" >"$bin/${p##*/}"
	chmod +x "$bin/${p##*/}"
done

echo "== unit tests"
for t in "$B"/tests/test_*; do
	[ -z "${CKPT_VALGRIND:-}" ] && [ -z "$only" ] || break
	[ -x "$t" ] || continue
	t0=$(now)
	out=$("$t" 2>&1)
	rc=$?
	echo "$(($(now) - t0)) ${t##*/}" >>"$times.new"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	p=${p:-0} f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1 # crashed or sanitizer report: count the binary as one failure
	fi
	pass=$((pass + p)) fail=$((fail + f))
	if [ "$f" -ne 0 ]; then
		printf '%s\n' "$out"
		failed="$failed ${t##*/}"
	fi
	echo "$(basename "$t"): $p passed, $f failed"
done

echo "== CLI cases"
fixtures="$work/fixtures"
[ -x "$B/tests/mkfixtures" ] || {
	echo "$B/tests/mkfixtures: not built (make check builds it: make B=$B check)"; exit 2; }
mkdir -p "$fixtures" && "$B/tests/mkfixtures" "$fixtures" || {
	echo "cannot make fixtures"; exit 2; }
# The cases run CKPT_JOBS at a time (default: one per CPU), the long ones
# (they call slow_case) first; those that time or signal the programs
# (serial_case) after the others, one at a time.  The report follows in
# the cases' order.
jobs=${CKPT_JOBS:-$(nproc 2>/dev/null || echo 1)}
: >"$work/parallel"
: >"$work/serial"
: >"$work/slow"
for c in tests/cli/*/*.sh; do
	[ -f "$c" ] || continue
	name=${c#tests/cli/}
	name=${name%.sh}
	[ -z "$only" ] || case $name in $only) ;; *) continue ;; esac
	if grep -q '^serial_case' "$c"; then
		echo "$name" >>"$work/serial"
	elif grep -q '^slow_case' "$c"; then
		echo "$name" >>"$work/slow"
	else
		echo "$name" >>"$work/parallel"
	fi
done
export work bin realbin fixtures top times
cat "$work/slow" "$work/parallel" | xargs -P "$jobs" -n 1 sh tests/case.sh
xargs -n 1 sh tests/case.sh <"$work/serial"
for name in $(LC_ALL=C sort "$work/slow" "$work/parallel" "$work/serial"); do
	flat=$(echo "$name" | tr / _)
	rc=$(cat "$work/res/$flat.rc" 2>/dev/null || echo 1)
	out=$(cat "$work/res/$flat.out" 2>/dev/null || echo "the case did not run")
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)); echo "SKIP: $name: $out" ;;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL: $name"
	   printf '%s\n' "$out" | sed 's/^/    /' ;;
	esac
done

if [ -n "${CKPT_VALGRIND:-}" ]; then
	for l in "$work"/vg/log/*; do
		[ -s "$l" ] || continue
		fail=$((fail + 1)); failed="$failed valgrind"
		echo "VALGRIND:"; sed 's/^/    /' "$l"
	done
fi
sort -rn "$times.new" >"$times" && rm -f "$times.new"
[ -z "$failed" ] || echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
