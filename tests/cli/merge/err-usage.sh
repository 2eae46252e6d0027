# Misuse and bad input: one line (and the usage line for misuse), exit 2,
# nothing written.
cd "$T"
ckpt-train -q --steps 0 -o a.h5
ckpt-train -q --steps 1 -o b.h5
run ckpt-merge a.h5 b.h5
expect_usage_error ckpt-merge 'no output given'
run ckpt-merge -o out.h5 a.h5
expect_usage_error ckpt-merge 'needs BASE and at least one SOURCE'
run ckpt-merge --strict --add -o out.h5 a.h5 b.h5
expect_usage_error ckpt-merge '--strict and --add contradict each other'
run ckpt-merge --rename 'a*=b' -o out.h5 a.h5 b.h5
expect_usage_error ckpt-merge "--rename 'a\*=b': a '\*' on each side or on neither"
run ckpt-merge --rename 'ab' -o out.h5 a.h5 b.h5
expect_usage_error ckpt-merge "--rename 'ab': not FROM=TO"
run ckpt-merge --join --only w -o out.h5 a.h5
expect_usage_error ckpt-merge '--split and --join take no name options'
run ckpt-merge --join -o out.h5
expect_usage_error ckpt-merge 'no SHARD given'
run ckpt-merge --frobnicate -o out.h5 a.h5 b.h5
expect_usage_error ckpt-merge "unknown option '--frobnicate'"
run ckpt-merge -o out.h5 a.h5 missing.h5
expect_error ckpt-merge 'missing.h5: No such file or directory'
run ckpt-merge -o out.h5 missing.h5 a.h5
expect_error ckpt-merge 'missing.h5: No such file or directory'
echo 'not hdf5' >text.h5
run ckpt-merge -o out.h5 a.h5 text.h5
expect_error ckpt-merge 'text.h5: '
head -c 1000 b.h5 >trunc.h5
run ckpt-merge -o out.h5 a.h5 trunc.h5
expect_error ckpt-merge 'trunc.h5: '
expect_no_file out.h5
echo keep >out.h5
run ckpt-merge -o out.h5 a.h5 b.h5
expect_error ckpt-merge 'out.h5: already exists \(use -f to replace it\)'
[ "$(cat out.h5)" = keep ] || fail "target changed"
