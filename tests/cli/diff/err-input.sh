# Trouble is exit 2, one line: unreadable, not HDF5, bad options.
cd "$T"
ckpt-train -q --steps 0 -o a.h5
printf 'text\n' >t.txt
run ckpt-diff a.h5 nope.h5
expect_error ckpt-diff "nope.h5: No such file"
run ckpt-diff t.txt a.h5
expect_error ckpt-diff "t.txt: not an HDF5 or safetensors file"
for args in "--atol -1" "--atol x" "--rtol nan" "--ulps -3" "--ulps 1.5" "-n x"; do
	run ckpt-diff $args a.h5 a.h5
	expect_usage_error ckpt-diff "^ckpt-diff: (--|-n)"
done
run ckpt-diff a.h5
expect_usage_error ckpt-diff "two checkpoints are needed"
run ckpt-diff --bogus a.h5 a.h5
expect_usage_error ckpt-diff "unknown option '--bogus'"
run ckpt-diff - - </dev/null
expect_usage_error ckpt-diff "only one side"
run ckpt-diff --bitwise --atol 1 a.h5 a.h5
expect_usage_error ckpt-diff "--bitwise goes without tolerances"
