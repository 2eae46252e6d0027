# A Hugging Face set (NAME.safetensors.index.json and its shards) is
# replaced as one commit (ckpt(7), Sets are one commit): killed at every
# step of the commit, or with any rename, link, unlink or fsync failing, a
# reader of the map finds the whole old set, byte for byte, or the whole
# new one; a failure is one line, exit 2, nothing new left; a whole run
# leaves the new set and nothing else (the old set's other shards gone).
slow_case
not_under_valgrind
need_h5py
. "$TOP/tests/cli/safety/set.lib"
cd "$T"
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "cannot make the sets"
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, st
rng = np.random.default_rng(1)
for s in "ab":
    t = [(f"w{i}", rng.standard_normal((3, 4)).astype("f4")) for i in range(6)]
    names = [f"{s}-{k:05d}-of-00003.safetensors" for k in (1, 2, 3)]
    for k in range(3):
        st.write(names[k], t[2 * k:2 * k + 2], metadata={"format": "pt"})
    json.dump({"metadata": {"total_size": 288},
               "weight_map": {n: names[i // 2] for i, (n, _) in enumerate(t)}},
              open(f"{s}.safetensors.index.json", "w"))
PY
mkdir old
ckpt-average -q -o old/out.safetensors.index.json b.safetensors.index.json || fail "old set"
ckpt-average -q -o new.safetensors.index.json a.safetensors.index.json b.safetensors.index.json ||
	fail "new set"
MAP=out.safetensors.index.json OLD=$T/old NEW=$T/new.safetensors.index.json

# the same shard names (the two-map path), then 3 shards replaced by 2
replace "$REALBIN"/ckpt-average -f -o set/$MAP a.safetensors.index.json b.safetensors.index.json
echo "same names: $steps steps"
ckpt-merge -q --split 2 -o new2.safetensors.index.json new.safetensors.index.json || fail split
NEW=$T/new2.safetensors.index.json
replace "$REALBIN"/ckpt-merge -f --split 2 -o set/$MAP new.safetensors.index.json
[ ! -e set/out-00003-of-00003.safetensors ] || fail "the old third shard is left"

# SIGTERM at every step: held during the commit, the run ends after it
NEW=$T/new.safetensors.index.json
SIG=15 replace "$REALBIN"/ckpt-average -f -o set/$MAP a.safetensors.index.json b.safetensors.index.json

# a map that is a symbolic link into another directory: the set is written
# where the link points, shards beside the target, the link kept
mkdir elsewhere
cp -p old/* elsewhere/
ln -s elsewhere/out.safetensors.index.json link.safetensors.index.json
run ckpt-average -f -o link.safetensors.index.json a.safetensors.index.json b.safetensors.index.json
expect_status 0
[ -L link.safetensors.index.json ] || fail "the link was replaced"
ls | grep -q '^link-' && fail "shards beside the link: $(ls)"
run ckpt-diff --bitwise elsewhere/out.safetensors.index.json new.safetensors.index.json
expect_status 0
[ "$(ls elsewhere | wc -l)" -eq 4 ] || fail "elsewhere: $(ls -A elsewhere)"

# a map that another map's shards share: those shards are not this
# output's names, and stay
cp b.safetensors.index.json c.safetensors.index.json
run ckpt-average -f -o c.safetensors.index.json a.safetensors.index.json
expect_status 0
run ckpt-diff --bitwise b.safetensors.index.json old/out.safetensors.index.json
expect_status 0
