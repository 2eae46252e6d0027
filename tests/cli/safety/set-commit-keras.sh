# A Keras sharded set (NAME.weights.json and its NAME_0000k.weights.h5
# shards) is replaced as one commit, like every set (set-commit-hf tells
# the checks): killed at every step, or with any rename, link, unlink or
# fsync failing, the old set or the new one, never a mix.
slow_case
not_under_valgrind
need_h5py
. "$TOP/tests/cli/safety/set.lib"
cd "$T"
"$PY" "$TOP/tests/cli/keras/mkkeras.py" . a 1 && "$PY" "$TOP/tests/cli/keras/mkkeras.py" . b 2 ||
	fail "cannot make the Keras files"
mkdir old
ckpt-average -q -o old/out.weights.json b.weights.json || fail "old set"
ckpt-average -q -o new.weights.json a.weights.json b.weights.json || fail "new set"
MAP=out.weights.json OLD=$T/old NEW=$T/new.weights.json
replace "$REALBIN"/ckpt-average -f -o set/$MAP a.weights.json b.weights.json
SIG=15 replace "$REALBIN"/ckpt-average -f -o set/$MAP a.weights.json b.weights.json

# a link to the map in another directory: shards beside its target
mkdir elsewhere
cp -p old/* elsewhere/
ln -s elsewhere/out.weights.json link.weights.json
run ckpt-average -f -o link.weights.json a.weights.json b.weights.json
expect_status 0
[ -L link.weights.json ] || fail "the link was replaced"
ls | grep -q '^link_' && fail "shards beside the link: $(ls)"
run ckpt-diff --bitwise elsewhere/out.weights.json new.weights.json
expect_status 0
[ "$(ls elsewhere | wc -l)" -eq "$(ls old | wc -l)" ] || fail "elsewhere: $(ls -A elsewhere)"
