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
# zero-length variables and a null dataspace: listed, flattened to nothing,
# averaged, merged
run ckpt-read --stats empty.h5
expect_status 0
expect_out '^zero5  *int32  *\[0,5\]'
[ "$(ckpt-flatten --size --exclude zero5 empty.h5)" = 0 ] || fail "empty size"
ckpt-average -q -o e.h5 empty.h5 empty.h5 && ckpt-diff -q --bitwise empty.h5 e.h5 ||
	fail "empty average"
ckpt-merge -q -o e2.h5 empty.h5 e.h5 && ckpt-diff -q --bitwise empty.h5 e2.h5 ||
	fail "empty merge"
# an archive whose members climb out of the directory: read in memory,
# never extracted, so nothing is written anywhere (from box/, whose parent
# only this case writes in: other cases come and go beside $T)
mkdir -p box/deep/er && cp names.h5 box/deep/x.h5
cd box || fail "box"
(cd deep/er && tar -P -cf ../../climb.tar ../x.h5) || fail "tar"
tar tf climb.tar 2>/dev/null | grep -q '^\.\./x.h5$' || skip "tar cannot write ../ member names"
before=$(ls -A .. | wc -l)
run ckpt-read --names climb.tar
expect_status 0
[ "$(ls -A .. | wc -l)" -eq "$before" ] || fail "something was written outside"
ckpt-average -q -o c.h5 climb.tar || fail "archive average"
[ "$(ls -A .. | wc -l)" -eq "$before" ] || fail "something was written outside"
ckpt-diff -q --bitwise ../names.h5 c.h5 || fail "archive average values"
cd .. || fail "back"
# JSON stays valid: bytes that are not UTF-8 become U+FFFD there
if command -v python3 >/dev/null; then
	ckpt-read --json names.h5 | python3 -c 'import json, sys; json.load(sys.stdin)' ||
		fail "ckpt-read --json: not valid JSON"
	ckpt-diff --json names.h5 back.h5 | python3 -c 'import json, sys; json.load(sys.stdin)' ||
		fail "ckpt-diff --json: not valid JSON"
fi
