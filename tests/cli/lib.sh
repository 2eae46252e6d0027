# tests/cli/lib.sh - helpers for CLI cases.  A case is a small sh script
# run in its own empty directory $T; it exits 0 (pass), 77 (skip, with the
# reason on stdout) or anything else (fail, with what went wrong).
# Given: $BIN (the programs), $FIX (fixtures from mkfixtures), $TOP.
set -u
REAL="$TOP/../shared/testdata/real"
PATH="$BIN:$PATH"
export CKPT_DEBUG=0 LC_ALL=C

fail() { echo "$*"; exit 1; }
skip() { echo "$*"; exit 77; }

# run CMD...: stdout to $T/out, stderr to $T/err, exit status to $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

expect_status() {
	[ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1; stderr: $(cat "$T/err")"
}

# expect_error PROG PATTERN: exit 2 and exactly one line on stderr, of the
# form "PROG: ...", matching the grep -E pattern.
expect_error() {
	expect_status 2
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "stderr is not one line: $(cat "$T/err")"
	grep -q "^$1: " "$T/err" || fail "stderr does not start with '$1: ': $(cat "$T/err")"
	grep -Eq -- "$2" "$T/err" || fail "stderr does not match '$2': $(cat "$T/err")"
}

# expect_usage_error PROG PATTERN: exit 2, the message, then one usage line.
expect_usage_error() {
	expect_status 2
	[ "$(wc -l <"$T/err")" -eq 2 ] || fail "stderr is not message + usage: $(cat "$T/err")"
	head -n 1 "$T/err" | grep -q "^$1: " || fail "bad message: $(cat "$T/err")"
	head -n 1 "$T/err" | grep -Eq -- "$2" || fail "stderr does not match '$2': $(cat "$T/err")"
	tail -n 1 "$T/err" | grep -q "^usage: $1 " || fail "no usage line: $(cat "$T/err")"
}

expect_out() {
	grep -Eq -- "$1" "$T/out" || fail "stdout lacks '$1': $(head -c 2000 "$T/out")"
}

expect_no_out() {
	! grep -Eq -- "$1" "$T/out" || fail "stdout has '$1': $(head -c 2000 "$T/out")"
}

expect_quiet_stderr() {
	[ ! -s "$T/err" ] || fail "unexpected stderr: $(cat "$T/err")"
}

expect_no_file() {
	for f; do [ ! -e "$f" ] || fail "$f was left behind"; done
	leftovers=$(ls -A "$T" | grep -v '^out$' | grep -v '^err$' | grep '^\.' || true)
	[ -z "$leftovers" ] || fail "temporary files left: $leftovers"
}

# A python3 with h5py and numpy (the pyenv one may lack them), or skip.
need_h5py() {
	for PY in python3 /usr/bin/python3; do
		"$PY" -c 'import h5py, numpy' 2>/dev/null && return 0
	done
	skip "python3 with h5py and numpy not installed"
}

# A python3 with torch (python3-torch), numpy and h5py, or skip.
need_torch() {
	need_h5py
	"$PY" -c 'import torch' 2>/dev/null || skip "python3 with torch not installed"
}

# A case that times or signals the programs begins with this line:
# tests/run.sh runs it alone, after the others (which run side by side).
serial_case() { :; }
# A case of minutes begins with this one: tests/run.sh starts it first.
slow_case() { :; }

# Cases that run for minutes under valgrind (many real files, timing).
not_under_valgrind() {
	[ -z "${CKPT_VALGRIND:-}" ] || skip "too slow under valgrind (run without VALGRIND=1)"
}

need_real() {
	[ -d "$REAL" ] || skip "../shared/testdata/real is absent"
}
