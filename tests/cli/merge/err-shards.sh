# Shards that overlap, miss, or come from different checkpoints; bad K or
# pattern: one line, exit 2, nothing written.
cd "$T"
"$BIN/../tests/mkfixtures" --many 6 m.h5
"$BIN/../tests/mkfixtures" --many 7 other.h5
ckpt-merge -q --split 3 -o 's%d.h5' m.h5
ckpt-merge -q --split 3 -o 'o%d.h5' other.h5
run ckpt-merge --join -o j.h5 s0.h5 s1.h5
expect_error ckpt-merge 'shard 2 of 3 is missing'
run ckpt-merge --join -o j.h5 s0.h5 s1.h5 s2.h5 s1.h5
expect_error ckpt-merge 's1.h5 and s1.h5 are both shard 1 of 3 \(shards overlap\)'
run ckpt-merge --join -o j.h5 s0.h5 s1.h5 o2.h5
expect_error ckpt-merge 's0.h5 and o2.h5 are shards of different checkpoints'
run ckpt-merge --join -o j.h5 s0.h5 s1.h5 m.h5
expect_error ckpt-merge 'm.h5: not a shard \(no ckpt_shard attribute'
# a shard that lost a variable, or gained one
ckpt-merge -q --add --rename 'g00/w0=extra/w' --only extra/w -o s1x.h5 s1.h5 m.h5
run ckpt-merge --join -o j.h5 s0.h5 s1x.h5 s2.h5
expect_error ckpt-merge 's1x.h5: has 3 variables, shard 1 of 3 holds 2'
expect_no_file j.h5
run ckpt-merge --split 0 -o 'x%d.h5' m.h5
expect_usage_error ckpt-merge '--split: 0 is out of range'
run ckpt-merge --split 2 -o 'x.h5' m.h5
expect_usage_error ckpt-merge 'needs exactly one %d'
run ckpt-merge --split 2 -o 'x%d%s.h5' m.h5
expect_usage_error ckpt-merge 'needs exactly one %d'
run ckpt-merge --split 2 --by weight -o 'x%d.h5' m.h5
expect_usage_error ckpt-merge "--by: 'weight' is not round-robin or size"
run ckpt-merge --split 2 -o 'x%d.h5' m.h5 other.h5
expect_usage_error ckpt-merge '--split takes one INPUT'
run ckpt-merge --split 2 --join -o 'x%d.h5' m.h5
expect_usage_error ckpt-merge '--split and --join are separate jobs'
# an existing shard is not replaced without -f, and nothing else is written
echo keep >x1.h5
run ckpt-merge --split 2 -o 'x%d.h5' m.h5
expect_error ckpt-merge 'x1.h5: already exists'
[ "$(cat x1.h5)" = keep ] || fail "x1.h5 changed"
expect_no_file x0.h5
