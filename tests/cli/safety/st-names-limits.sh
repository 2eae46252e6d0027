# What safetensors cannot hold is refused before anything is written, naming
# the way out: a variable named __metadata__ (the format's key for its
# metadata), a header over the 100,000,000 bytes its readers accept.  One
# file written from a set keeps the union of the shards' __metadata__ and
# the map's metadata, the first value of a key winning, with one warning.
need_h5py
cd "$T"
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "cannot make the files"
import json, sys
sys.path.insert(0, sys.argv[1])
import h5py, numpy as np, st
with h5py.File("meta.h5", "w") as f:
    f["__metadata__"] = np.arange(3, dtype="f4")
    f["w"] = np.ones(2, dtype="f4")
# a root string of 100,000,001 bytes: the header would be over the limit
with h5py.File("big.h5", "w", libver="latest") as f:
    f.attrs["note"] = "x" * 100_000_001
    f["w"] = np.ones(2, dtype="f4")
st.write("s-00001-of-00002.safetensors", [("a", np.ones(2, "f4"))],
         metadata={"format": "pt", "run": "7"})
st.write("s-00002-of-00002.safetensors", [("b", np.ones(2, "f4"))],
         metadata={"format": "pt", "run": "8", "seed": "1"})
json.dump({"metadata": {"total_size": 16, "origin": "hub", "run": "9", "n": 2},
           "weight_map": {"a": "s-00001-of-00002.safetensors",
                          "b": "s-00002-of-00002.safetensors"}},
          open("s.safetensors.index.json", "w"))
PY
run ckpt-average -o m.safetensors meta.h5
expect_error ckpt-average "m.safetensors: variable '__metadata__': .*--rename"
expect_no_file m.safetensors
"$PY" -c 'import h5py; h5py.File("empty.h5", "w").close()'
run ckpt-merge -q --add --rename __metadata__=meta -o m.safetensors empty.h5 meta.h5
expect_status 0
run ckpt-read m.safetensors
expect_out "^meta "

run ckpt-average -o big.safetensors big.h5
expect_error ckpt-average "big.safetensors: the header would take [0-9]+ bytes, over the 100000000 .*sharded set"
expect_no_file big.safetensors

for out in one.safetensors one.h5; do
	run ckpt-average -o $out s.safetensors.index.json
	expect_status 0
	[ "$(wc -l <err)" -eq 1 ] && grep -q "^ckpt-average: $out: metadata 'run' differs between the files of s.safetensors.index.json: the first value kept$" err ||
		fail "$out: the warning: $(cat err)"
done
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "the metadata of one.safetensors"
import sys, h5py
sys.path.insert(0, sys.argv[1])
import st
meta, _ = st.read("one.safetensors")
want = {"format": "pt", "run": "7", "seed": "1", "origin": "hub", "n": "2"}
assert meta == want, meta
f = h5py.File("one.h5", "r")
got = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in f.attrs.items()}
assert got == want, got
PY
