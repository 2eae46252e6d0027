# -q drops the header and the totals.
run ckpt-read -q "$FIX/model.h5"
expect_status 0
expect_no_out '^NAME'
expect_no_out 'variables,'
[ "$(wc -l <"$T/out")" -eq 6 ] || fail "expected 6 rows: $(cat "$T/out")"
