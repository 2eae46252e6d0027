# A TensorFlow checkpoint is named as TensorFlow users name it: its prefix
# (run/ckpt-100, which is no file), its .index, a directory whose
# `checkpoint` state file names the latest prefix (relative or absolute),
# a SavedModel directory (variables/variables.index).  A state file that
# names a missing checkpoint, and a directory that holds none, are one
# line each.
need_h5py
cd "$T"
M="$TOP/tests/cli/tf/mkbundle.py"
mkdir -p run sm/variables empty
"$PY" "$M" run/ckpt-100 'w=float32:4:1' || fail "cannot make run/ckpt-100"
"$PY" "$M" run/ckpt-200 'w=float32:4:2' || fail "cannot make run/ckpt-200"
"$PY" "$M" sm/variables/variables 'w=float32:4:2' || fail "cannot make the SavedModel"
: >sm/saved_model.pb
printf 'model_checkpoint_path: "ckpt-200"\nall_model_checkpoint_paths: "ckpt-100"\nall_model_checkpoint_paths: "ckpt-200"\n' >run/checkpoint
for name in run/ckpt-200 run/ckpt-200.index run sm; do
	run ckpt-diff --bitwise run/ckpt-200 "$name"
	expect_status 0
done
run ckpt-diff -q run/ckpt-100 run
expect_status 1
mkdir abs
printf 'model_checkpoint_path: "%s/run/ckpt-100"\n' "$T" >abs/checkpoint
run ckpt-diff --bitwise run/ckpt-100 abs
expect_status 0
printf 'model_checkpoint_path: "ckpt-300"\n' >run/checkpoint
run ckpt-read run
expect_error ckpt-read "^ckpt-read: run: its checkpoint file names run/ckpt-300.index, which is not there$"
run ckpt-read empty
expect_error ckpt-read '^ckpt-read: empty: is a directory$'
run ckpt-read run/ckpt-300
expect_error ckpt-read '^ckpt-read: run/ckpt-300: No such file or directory$'
