# One worker, 201 iterations: w and b within 1e-3 of 0.1 and 0.3; reports
# every 20 iterations and the held-out loss on stderr; attributes recorded.
run ckpt-train -o "$T/m.h5"
expect_status 0
grep -q '^iteration 0: w=0.24019283 b=0.30112192 loss=' "$T/err" || fail "first report: $(head -2 "$T/err")"
grep -q '^iteration 200: w=' "$T/err" || fail "no report at 200"
[ "$(grep -c '^iteration' "$T/err")" -eq 11 ] || fail "reports: $(cat "$T/err")"
grep -q '^test loss on batch 1: ' "$T/err" || fail "no test loss"
run ckpt-read --tsv --values "$T/m.h5"
w=$(awk -F'\t' '$2 == "w" { print $4 }' "$T/out")
b=$(awk -F'\t' '$2 == "b" { print $4 }' "$T/out")
awk -v w="$w" -v b="$b" 'BEGIN { exit !((w - 0.1)^2 < 1e-6 && (b - 0.3)^2 < 1e-6) }' ||
	fail "w=$w b=$b"
h5dump -a iterations "$T/m.h5" 2>/dev/null | grep -q '(0): 201' || \
	{ command -v h5dump >/dev/null && fail "iterations attribute"; }
h5dump -a options "$T/m.h5" 2>/dev/null | grep -q 'workers=1 sync=params' || \
	{ command -v h5dump >/dev/null && fail "options attribute"; }
