# 10,000 variables in 100 groups are all listed.
"$BIN/../tests/mkfixtures" --many 10000 "$T/many.h5" || fail "mkfixtures"
run ckpt-read -q --names "$T/many.h5"
expect_status 0
[ "$(wc -l <"$T/out")" -eq 10000 ] || fail "listed $(wc -l <"$T/out")"
expect_out '^g99/w9999$'
