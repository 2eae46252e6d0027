# Broken Keras containers: one line naming the file (and member or shard),
# exit 2, nothing written.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/keras/mkkeras.py" . a 1 || fail "cannot make the Keras files"
bad() { # bad FILE PATTERN: every reading program refuses FILE so
	run ckpt-read "$1"
	expect_error ckpt-read "$2"
	run ckpt-average -o out.h5 "$1" a.weights.h5
	expect_error ckpt-average "$2"
	expect_no_file out.h5
	run ckpt-diff "$1" a.weights.h5
	expect_error ckpt-diff "$2"
}
printf '{"weight_map": {"/layers/dense/vars": "a_00000.weights.h5",}}' >notjson.weights.json
bad notjson.weights.json "^ckpt-[a-z]+: notjson.weights.json: not valid JSON: .*line 1"
printf '{"metadata": {"total_size": 1}}' >nomap.weights.json
bad nomap.weights.json "nomap.weights.json: not a shard map \(no \"weight_map\""
printf '{"weight_map": {"/a/vars": "a_00000.weights.h5", "/a/vars": "a_00001.weights.h5"}}' \
	>dupkey.weights.json
bad dupkey.weights.json "dupkey.weights.json: not valid JSON: duplicate object key"
printf '{"weight_map": {"/layers/dense/vars": "gone_00000.weights.h5"}}' >missing.weights.json
bad missing.weights.json "missing.weights.json: shard gone_00000.weights.h5: No such file"
echo "not hdf5" >junk_00000.weights.h5
printf '{"weight_map": {"/x/vars": "junk_00000.weights.h5"}}' >junk.weights.json
bad junk.weights.json "junk.weights.json: shard junk_00000.weights.h5: not an HDF5"
printf '{"weight_map": {"/x/vars": "../a_00000.weights.h5"}}' >path.weights.json
bad path.weights.json "path.weights.json: weight_map: \"../a_00000.weights.h5\" is not a file beside"
printf '{"weight_map": {"/x/vars": 3}}' >num.weights.json
bad num.weights.json "num.weights.json: weight_map: \"/x/vars\" is not mapped to a file name"
# the same variable in two shards
cp a_00000.weights.h5 twice.weights.h5
printf '{"weight_map": {"/a": "a_00000.weights.h5", "/b": "twice.weights.h5"}}' >two.weights.json
bad two.weights.json "two.weights.json: variable 'layers/dense/vars/0' is in two shards: a_00000.weights.h5 and twice.weights.h5"
# a .keras without model.weights.h5
"$PY" - <<'PY'
import zipfile
with zipfile.ZipFile("noweights.keras", "w") as z:
    z.writestr("metadata.json", "{}")
    z.writestr("config.json", "{}")
PY
bad noweights.keras "noweights.keras: a Keras archive without model.weights.h5"
# a zip member cut short
size=$(wc -c <a.keras)
head -c $((size - 3000)) a.keras >cut.keras
bad cut.keras "cut.keras(:model.weights.h5)?: damaged archive"
