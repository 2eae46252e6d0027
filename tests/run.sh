#!/bin/sh
# tests/run.sh BUILD_DIR [PATTERN] - run every cmocka unit test and every
# CLI case (or, with PATTERN, only the CLI cases whose name matches it, as
# 'integrity/*'); the last line is "N passed, N failed, N skipped".  Exit 1
# if any failed.
B=${1:-build}
only=${2:-}
top=$(pwd)
pass=0 fail=0 skip=0
failed=""

work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-tests.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

# CKPT_VALGRIND=1: every program run by the CLI cases runs under valgrind's
# memcheck (through wrappers in place of the programs); any memory error is
# a failure, and so is a definite leak in a run that succeeded (a program
# stopping on an error exits at once, by design, holding what it held).
# Cases too slow for it say so and skip.
bin="$top/$B/bin"
if [ -n "${CKPT_VALGRIND:-}" ]; then
	command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 2; }
	bin="$work/vg/bin"
	mkdir -p "$bin" "$work/vg/log"
	ln -s "$top/$B/tests" "$work/vg/tests"
	for p in "$top/$B"/bin/ckpt-*; do
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
ln -s "$top/$B/tests" "$work/guard/tests"
for p in "$realbin"/ckpt-*; do
	printf '#!/bin/sh\nexec sh "%s/tests/guard.sh" "%s" "$@"\n' "$top" "$p" >"$bin/${p##*/}"
	chmod +x "$bin/${p##*/}"
done

echo "== unit tests"
for t in "$B"/tests/test_*; do
	[ -z "${CKPT_VALGRIND:-}" ] && [ -z "$only" ] || break
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
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
mkdir -p "$fixtures" && "$B/tests/mkfixtures" "$fixtures" || {
	echo "cannot make fixtures"; exit 2; }
for c in tests/cli/*/*.sh; do
	[ -f "$c" ] || continue
	name=${c#tests/cli/}
	name=${name%.sh}
	[ -z "$only" ] || case $name in $only) ;; *) continue ;; esac
	T="$work/case/$name"
	mkdir -p "$T"
	guardlog="$work/guard/$(echo "$name" | tr / _).log"
	out=$(cd "$T" && BIN="$bin" REALBIN="$realbin" FIX="$fixtures" TOP="$top" T="$T" \
	      CASE="$name" CKPT_GUARD_LOG="$guardlog" sh -c '. "$TOP/tests/cli/lib.sh"; . "$TOP/tests/cli/$CASE.sh"' 2>&1)
	rc=$?
	if [ -s "$guardlog" ] && [ "$rc" -ne 77 ]; then
		out=$(printf '%s\n' "$out"; cat "$guardlog")
		rc=1
	fi
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
[ -z "$failed" ] || echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
