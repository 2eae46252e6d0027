# NaN makes min/max/mean/std/l2 NaN (as numpy does); counts stay exact.
run ckpt-read --stats --tsv --only 'special/f16' "$FIX/dtypes.h5"
expect_status 0
line=$(grep 'special/f16' "$T/out" | tr '\t' ' ')
set -- $line
[ "$7 $8 $9 ${10} ${11}" = "nan nan nan nan nan" ] || fail "stats: $line"
[ "${12} ${13} ${14}" = "1 2 2" ] || fail "counts: $line"
