# A full disk: a clear error, exit 2, the target untouched, no temporary.
[ -w /dev/full ] || skip "no /dev/full"
mkdir -p "$T/fs"
if ! mount -t tmpfs -o size=200k tmpfs "$T/fs" 2>/dev/null; then
	skip "cannot mount a small tmpfs here"
fi
trap 'umount "$T/fs"' EXIT
"$BIN/../tests/mkbench" 1 "$T/big.h5" 0.05 || fail mkbench
printf 'old' >"$T/fs/out.h5"
run ckpt-average -f -o "$T/fs/out.h5" "$T/big.h5" "$T/big.h5"
expect_error ckpt-average "out.h5"
[ "$(cat "$T/fs/out.h5")" = old ] || fail "target changed"
[ "$(ls -A "$T/fs")" = "out.h5" ] || fail "left: $(ls -A "$T/fs")"
rm -f "$T/big.h5"
