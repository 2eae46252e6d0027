#!/bin/sh
# tests/run.sh BUILD_DIR - run every cmocka unit test and every CLI case;
# the last line is "N passed, N failed, N skipped".  Exit 1 if any failed.
B=${1:-build}
top=$(pwd)
pass=0 fail=0 skip=0
failed=""

work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-tests.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

echo "== unit tests"
for t in "$B"/tests/test_*; do
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
	T="$work/case/$name"
	mkdir -p "$T"
	out=$(cd "$T" && BIN="$top/$B/bin" FIX="$fixtures" TOP="$top" T="$T" \
	      CASE="$name" sh -c '. "$TOP/tests/cli/lib.sh"; . "$TOP/tests/cli/$CASE.sh"' 2>&1)
	rc=$?
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)); echo "SKIP: $name: $out" ;;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL: $name"
	   printf '%s\n' "$out" | sed 's/^/    /' ;;
	esac
done

[ -z "$failed" ] || echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
