# --stats: min, max, mean, std, l2, nan, inf, zeros, computed by streaming.
# kernel holds -3 + 0.5*i for i = 0..11: mean -0.25, std 0.5*sqrt(143/12),
# sum of squares 36.5, one zero.
run ckpt-read --stats --tsv --only 'dense/dense/kernel:0' "$FIX/model.h5"
expect_status 0
expect_out '^file	name	dtype	shape	elements	bytes	min	max	mean	std	l2	nan	inf	zeros$'
set -- $(grep 'kernel' "$T/out" | tr '\t' ' ')
[ "$7 $8 $9" = "-3 2.5 -0.25" ] || fail "min/max/mean: $*"
[ "${12} ${13} ${14}" = "0 0 1" ] || fail "counts: $*"
awk -v s="${10}" -v l="${11}" 'BEGIN {
	ds = s - 0.5 * sqrt(143 / 12); dl = l - sqrt(36.5)
	exit !(ds * ds < 1e-28 && dl * dl < 1e-28) }' || fail "std/l2: ${10} ${11}"
