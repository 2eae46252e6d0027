# -o - writes to stdout, for a pipe into another program; never to a terminal.
ckpt-train -q --steps 1 -o "$T/a.h5"
ckpt-average -o - "$T/a.h5" "$T/a.h5" | ckpt-read --names - >"$T/out" 2>"$T/err" || fail "$(cat "$T/err")"
expect_out '^w$'
if command -v script >/dev/null; then
	script -qec "$REALBIN/ckpt-average -o - $T/a.h5" /dev/null >"$T/tty" 2>&1
	grep -q "refusing to write an HDF5 file to a terminal" "$T/tty" || fail "wrote to a terminal: $(head -c 300 "$T/tty")"
fi
