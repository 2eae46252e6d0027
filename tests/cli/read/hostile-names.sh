# Names with spaces, newlines, tabs, '%' and bytes that are not UTF-8:
# one line per variable in text output (control bytes escaped), exact in
# JSON, and through a manifest and back unchanged.
cd "$T"
"$BIN/../tests/mkfixtures" --hostile .
run ckpt-read --names names.h5
expect_status 0
[ "$(wc -l <out)" -eq 6 ] || fail "not one line each: $(cat out)"
expect_out '^new\\nline$'
expect_out '^tab\\there$'
expect_out '^per%cent%s%n$'
run ckpt-read --tsv names.h5
[ "$(wc -l <out)" -eq 7 ] || fail "tsv: $(cat out)"
[ "$(awk -F '\t' '{ print NF }' out | sort -u)" = 6 ] || fail "tsv fields"
ckpt-read names.h5 | grep -q '^new\\nline  *float32' || fail "table"
ckpt-flatten --manifest m.tsv -o m.bin names.h5
ckpt-unflatten --manifest m.tsv -o back.h5 m.bin
ckpt-diff -q --bitwise names.h5 back.h5 || fail "names changed on the way"
ckpt-merge -q -o merged.h5 names.h5 back.h5 || fail "merge"
ckpt-average -q -o avg.h5 names.h5 back.h5 || fail "average"
ckpt-diff -q --bitwise names.h5 avg.h5 || fail "average values"
