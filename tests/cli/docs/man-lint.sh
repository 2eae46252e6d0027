# Every man page passes mandoc's lint without warnings.
command -v mandoc >/dev/null || skip "mandoc not installed"
for m in "$TOP"/man/man*/*.[157]; do
	mandoc -Tlint -Wwarning "$m" >"$T/lint" 2>&1 || fail "$(cat "$T/lint")"
	[ ! -s "$T/lint" ] || fail "$(cat "$T/lint")"
done
