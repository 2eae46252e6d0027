# -w weights (normalised), --no-normalize for any linear combination.
cd "$T"
ckpt-train -q --steps 0 --seed 1 -o a.h5
ckpt-train -q --steps 0 --seed 2 -o b.h5
ckpt-train -q --steps 0 --seed 3 -o c.h5
wa=$(ckpt-read --tsv --values --only w a.h5 | awk 'NR == 2 { print $4 }')
wb=$(ckpt-read --tsv --values --only w b.h5 | awk 'NR == 2 { print $4 }')
wc=$(ckpt-read --tsv --values --only w c.h5 | awk 'NR == 2 { print $4 }')
run ckpt-average -w 3,1 -o w31.h5 a.h5 b.h5
expect_status 0
got=$(ckpt-read --tsv --values --only w w31.h5 | awk 'NR == 2 { print $4 }')
awk -v g="$got" -v a="$wa" -v b="$wb" 'BEGIN { e = 0.75 * a + 0.25 * b; exit !((g - e)^2 < 1e-14) }' ||
	fail "3:1 weights: $got from $wa $wb"
run ckpt-average -w 1,1,-1 --no-normalize -o abc.h5 a.h5 b.h5 c.h5
expect_status 0
got=$(ckpt-read --tsv --values --only w abc.h5 | awk 'NR == 2 { print $4 }')
awk -v g="$got" -v a="$wa" -v b="$wb" -v c="$wc" 'BEGIN { e = a + b - c; exit !((g - e)^2 < 1e-14) }' ||
	fail "a + b - c: $got"
# equal weights are the plain mean, bit for bit
ckpt-average -o m1.h5 a.h5 b.h5 c.h5
ckpt-average -w 2,2,2 -o m2.h5 a.h5 b.h5 c.h5
[ "$(ckpt-read -q --values m1.h5)" = "$(ckpt-read -q --values m2.h5)" ] || fail "equal weights"
