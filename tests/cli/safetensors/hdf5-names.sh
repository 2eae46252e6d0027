# Names HDF5 cannot hold are refused up front, one line naming the
# variable, no output left: '/abs' (it was "group '': cannot create"),
# 'a//b' and 'a/' (they became 'a/b' and 'a' without a word), 'a/./b'.
# A safetensors output takes them as they are.
need_h5py
"$PY" - <<'PY' || fail "cannot make the inputs"
import json, struct
for name, bad in (("abs", "/abs"), ("dbl", "a//b"), ("trail", "a/"), ("dot", "a/./b")):
    hdr = {"ok": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
           bad: {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    open(name + ".safetensors", "wb").write(struct.pack("<Q", len(h)) + h + b"\0" * 8)
PY
for c in "abs:/abs:it starts with '/'" "dbl:a//b:it has an empty component" \
         "trail:a/:it has an empty component" "dot:a/./b:it has a component '.' or '..'"; do
	base=${c%%:*}; rest=${c#*:}; name=${rest%%:*}; why=${rest#*:}
	run ckpt-average -o $base.h5 $base.safetensors
	expect_error ckpt-average "^ckpt-average: $base.h5: variable '$name': HDF5 cannot hold this name \($why\); a safetensors output can$"
	expect_no_file $base.h5
	run ckpt-average -o $base.out.safetensors $base.safetensors
	expect_status 0
done
