# --names: one name per line, in the toolkit's order (name order here).
run ckpt-read --names "$FIX/model.h5"
expect_status 0
printf '%s\n' dense/dense/bias:0 dense/dense/kernel:0 empty labels \
	optimizer/iterations:0 records >"$T/want"
cmp -s "$T/out" "$T/want" || fail "got: $(cat "$T/out")"
