# Mismatched variables: exit 2 naming the first difference; --partial
# averages each variable over the inputs that have it, and says so.
cd "$T"
ckpt-train -q --steps 0 -o wb.h5
ckpt-train -q --steps 0 --prefix p -o pwb.h5
ckpt-train -q --steps 0 --features 2 -o w2.h5
run ckpt-average -o out.h5 wb.h5 pwb.h5
expect_error ckpt-average "pwb.h5: lacks variable 'w' that .*wb.h5 has"
run ckpt-average -o out.h5 wb.h5 w2.h5
expect_error ckpt-average "w2.h5: variable 'w' has shape \[1,2\], .*wb.h5 has \[1\]"
expect_no_file out.h5
"$BIN/../tests/mkfixtures" --many 3 m3.h5
"$BIN/../tests/mkfixtures" --many 2 m2.h5
run ckpt-average --partial -o out.h5 m3.h5 m2.h5
expect_status 0
grep -q "m2.h5: lacks variable 'g02/w2': averaged over the other inputs" "$T/err" || fail "no warning: $(cat "$T/err")"
run ckpt-average --partial -q -o out2.h5 m2.h5 m3.h5
expect_status 0
expect_quiet_stderr
ckpt-read --names out2.h5 | grep -q g02 && fail "variable not in the first input was added"
true
