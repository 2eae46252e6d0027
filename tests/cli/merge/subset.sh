# Only variables BASE has are set (the later SOURCE wins); the others are
# ignored and counted, an error with --strict, added with --add; names go
# through --rename and the prefixes, then --only/--exclude.
cd "$T"
"$BIN/../tests/mkfixtures" --many 6 base.h5     # g00/w0 ... g05/w5, float32 [4]
ckpt-average -q --no-normalize -w 2 -o two.h5 base.h5
ckpt-average -q --no-normalize -w 3 -o three.h5 base.h5
# s1 holds g00/w0 and g01/w1 of two.h5, nothing else
ckpt-flatten --only 'g0[01]/*' --manifest s1.tsv -o s1.bin two.h5
ckpt-unflatten --manifest s1.tsv -o s1.h5 s1.bin
run ckpt-merge -o out.h5 base.h5 s1.h5 three.h5
expect_status 0
grep -q "out.h5: 6 variables replaced, 0 kept; 0 ignored" err || fail "summary: $(cat err)"
run ckpt-merge -o s1only.h5 base.h5 s1.h5
grep -q "s1only.h5: 2 variables replaced, 4 kept; 0 ignored" err || fail "summary: $(cat err)"
ckpt-diff -q --bitwise out.h5 three.h5 || fail "the last SOURCE does not win"
run ckpt-merge -o out2.h5 base.h5 three.h5 s1.h5
ckpt-diff -q --bitwise --only 'g0[01]/*' out2.h5 two.h5 || fail "g00/g01 not from s1"
ckpt-diff -q --bitwise --exclude 'g0[01]/*' out2.h5 three.h5 || fail "others not from three"
# --only / --exclude on the SOURCE's (mapped) names; the rest is kept
ckpt-merge -q --only 'g02/*' --exclude '*w3' -o o.h5 base.h5 three.h5
ckpt-diff -q --bitwise --only g02/w2 o.h5 three.h5 || fail "--only"
ckpt-diff -q --bitwise --exclude g02/w2 o.h5 base.h5 || fail "kept"
# a SOURCE with variables BASE lacks
"$BIN/../tests/mkfixtures" --many 8 more.h5
run ckpt-merge -o m.h5 base.h5 more.h5
expect_status 0
grep -q "6 variables replaced, 0 kept; 2 ignored, 0 added (--add adds them)" err || fail "ignored: $(cat err)"
run ckpt-merge --strict -o m2.h5 base.h5 more.h5
expect_error ckpt-merge "more.h5: variable 'g06/w6' is not in .*base.h5 \(--strict\)"
expect_no_file m2.h5
run ckpt-merge --add -q -o m3.h5 base.h5 more.h5
expect_status 0
[ "$(ckpt-read --names m3.h5 | tr '\n' ' ')" = "$(ckpt-read --names more.h5 | tr '\n' ' ')" ] ||
	fail "added: $(ckpt-read --names m3.h5)"
ckpt-diff -q --bitwise m3.h5 more.h5 || fail "added values"
# --dry-run: the plan, nothing written
run ckpt-merge -n --add --only 'g0[0-1]*' -o plan.h5 base.h5 more.h5
expect_status 0
expect_no_file plan.h5
expect_out '^g00/w0	replaced	.*more.h5	g00/w0$'
expect_out '^g02/w2	kept$'
run ckpt-merge -n --add -o plan.h5 base.h5 more.h5
expect_out '^g07/w7	added	.*more.h5	g07/w7$'
# --rename: exact, and with a '*' on each side
ckpt-merge -q --rename 'g00/w0=new/w' --only new/w --add -o r.h5 base.h5 three.h5
ckpt-read -q --values --only new/w r.h5 | tail -n 1 >got
ckpt-read -q --values --only g00/w0 three.h5 | tail -n 1 >want
cmp -s got want || fail "exact rename: $(cat got) vs $(cat want)"
ckpt-train -q --steps 0 -o base1.h5
ckpt-train -q --steps 4 --prefix dense_1 -o d1.h5
run ckpt-merge -o r2.h5 base1.h5 d1.h5
expect_error ckpt-merge "try --strip-prefix 'dense_1/'"
ckpt-train -q --steps 0 --prefix dense -o dbase.h5
run ckpt-merge -o r2.h5 dbase.h5 d1.h5
expect_error ckpt-merge "try --rename 'dense_1/\*=dense/\*'"
run ckpt-merge -q --rename 'dense_1/*=dense/*' -o r2.h5 dbase.h5 d1.h5
expect_status 0
ckpt-flatten -o r2.bin r2.h5 && ckpt-flatten -o d1.bin d1.h5
cmp -s r2.bin d1.bin || fail "glob rename"
# two names mapped onto one
run ckpt-merge --rename 'g00/w0=g01/w1' --only 'g0[01]/*' -o x.h5 base.h5 three.h5
expect_error ckpt-merge "three.h5: variables 'g00/w0' and 'g01/w1' would both be called 'g01/w1'"
expect_no_file x.h5
# in place, and through pipes
cp base.h5 inplace.h5
ckpt-merge -q -f -o inplace.h5 inplace.h5 three.h5 || fail "in place"
ckpt-diff -q --bitwise inplace.h5 three.h5 || fail "in place values"
ckpt-merge -q -o - - three.h5 <base.h5 | ckpt-diff -q --bitwise - three.h5 || fail "pipes"
