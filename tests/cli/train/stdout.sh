# -o - writes the checkpoint to standard output, for a pipe.
ckpt-train -q --steps 2 -o - | ckpt-read --names - >"$T/out" 2>"$T/err" || fail "$(cat "$T/err")"
expect_out '^w$'
