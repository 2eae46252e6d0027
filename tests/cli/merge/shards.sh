# --split K writes K shards (round-robin, or balanced by size), each with
# the groups and attributes; --join gives back the original: the same
# variables in the same order, values and attributes (ckpt-diff, h5diff).
cd "$T"
"$BIN/../tests/mkfixtures" --many 10 m.h5
in=m.h5
if [ -d "$REAL/keras" ]; then   # a real Keras file: groups, attributes
	in=$(find "$REAL/keras" -name '*.h5' -size +100k | sort | head -n 1)
	[ -n "$in" ] || in=m.h5
fi
for by in round-robin size; do
	rm -f s*.h5 j.h5
	run ckpt-merge --split 3 --by $by -o 's%d.h5' "$in"
	expect_status 0
	[ -f s0.h5 ] && [ -f s1.h5 ] && [ -f s2.h5 ] && [ ! -f s3.h5 ] || fail "$by: shards: $(ls)"
	total=0
	for s in 0 1 2; do
		total=$((total + $(ckpt-read --names s$s.h5 | wc -l)))
	done
	[ $total -eq "$(ckpt-read --names "$in" | wc -l)" ] || fail "$by: $total variables in the shards"
	run ckpt-merge --join -o j.h5 s2.h5 s0.h5 s1.h5
	expect_status 0
	ckpt-diff -q --bitwise "$in" j.h5 || fail "$by: values"
	[ "$(ckpt-read --names "$in")" = "$(ckpt-read --names j.h5)" ] || fail "$by: order"
	h5diff "$in" j.h5 >/dev/null 2>&1 || fail "$by: h5diff: $(h5diff "$in" j.h5 | head -n 5)"
done
# round-robin: variable i to shard i mod K
ckpt-merge -q --split 4 -o 'r%d.h5' m.h5
[ "$(ckpt-read --names r1.h5 | tr '\n' ' ')" = "g01/w1 g05/w5 g09/w9 " ] ||
	fail "round-robin: $(ckpt-read --names r1.h5)"
# by size: balanced bytes
"$BIN/../tests/mkfixtures" --many 3 small.h5
ckpt-merge -q -n --split 2 --by size -o 'z%d.h5' "$FIX/dtypes.h5" >plan
expect_no_file z0.h5 z1.h5
[ "$(wc -l <plan)" -eq 16 ] || fail "dry run: $(cat plan)"
# K = 1 and K beyond the variables are fine
ckpt-merge -q --split 1 -o 'one%d.h5' m.h5 && ckpt-merge -q --join -o one.h5 one0.h5 &&
	ckpt-diff -q --bitwise m.h5 one.h5 || fail "K = 1"
ckpt-merge -q --split 12 -o 'k%d.h5' m.h5 && ckpt-merge -q --join -o k.h5 k*.h5 &&
	ckpt-diff -q --bitwise m.h5 k.h5 || fail "K = 12"
