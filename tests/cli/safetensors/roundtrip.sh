# Every dtype of the format, empty and 0-d tensors and __metadata__: listed
# in data order with the keys as they are, converted to HDF5 with the
# values h5py reads equal to the spec's, and back to a file equal byte for
# byte; through a pipe likewise.  float8 tensors are listed and copied as
# they are.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/safetensors/mkall.py" . || fail "cannot make the files"
run ckpt-read all.safetensors
expect_status 0
awk 'NR > 1 && NF == 5 { print $1 }' out | tr '\n' ' ' >names
[ "$(cat names)" = "model.z.weight model.layers.0.bias model.a.f64 bf16 i64 i32 i16 i8 u8 u16 u32 u64 mask scalar empty empty.i32 " ] ||
	fail "not in data order: $(cat names)"
expect_out "^bf16 +bfloat16 +\[8\]"
expect_out "^scalar +float32 +\[\] +1 "
expect_out "^16 variables, 146 parameters, 681 bytes"

run ckpt-average -o all.h5 all.safetensors
expect_status 0
expect_quiet_stderr
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "all.h5 does not hold all.safetensors' values"
import sys
sys.path.insert(0, sys.argv[1])
import h5py, numpy as np, st
meta, tensors = st.read("all.safetensors")
f = h5py.File("all.h5", "r")
assert {k: f.attrs[k] for k in f.attrs} == meta, dict(f.attrs)
names = []
f.visit(lambda k: names.append(k) if isinstance(f[k], h5py.Dataset) else None)
assert sorted(names) == sorted(t[0] for t in tensors), names
for name, dtype, shape, raw in tensors:
    want, got = st.array(dtype, shape, raw), f[name][()]
    assert np.shape(got) == shape, (name, np.shape(got))
    if dtype == "BF16":  # a 16-bit HDF5 float h5py widens to float32
        g = np.asarray(got, "<f4")  # (HDF5 widens a NaN to another NaN)
        want = np.where(np.isnan(g), 0, want)
        got = (np.where(np.isnan(g), 0, g).view("<u4") >> 16).astype("<u2")
    assert np.asarray(got).tobytes() == want.tobytes(), name
PY
run ckpt-average -o back.safetensors all.h5
expect_status 0
expect_quiet_stderr
cmp -s back.safetensors all.safetensors || fail "all.safetensors -> HDF5 -> safetensors changed the file"

# a safetensors base and "-": safetensors on stdout
ckpt-average -o - all.safetensors >pipe.safetensors 2>err || fail "-o -: $(cat err)"
cmp -s pipe.safetensors all.safetensors || fail "-o - wrote another file"
ckpt-average -o - all.safetensors | ckpt-diff - all.safetensors >out 2>err ||
	fail "through a pipe: $(cat out err)"

# float8: read as numbers (exactly), copied as they are, written in HDF5
# only as another type
run ckpt-read --stats f8.safetensors
expect_out "^e4m3 +float8_e4m3 +\[4\] +4 +4 +-1 +448 "
expect_out "^e5m2 +float8_e5m2 +\[4\] +4 +4 +-1 +57344 "
run ckpt-merge -o f8b.safetensors f8.safetensors f8.safetensors
expect_status 0
cmp -s f8b.safetensors f8.safetensors || fail "float8 tensors changed in a copy"
run ckpt-average -o f8.h5 f8.safetensors
expect_error ckpt-average "f8.h5: variable 'e4m3': HDF5 has no float8_e4m3 type; store it as another with --dtype"
expect_no_file f8.h5
run ckpt-average --dtype f64 -o f8.h5 f8.safetensors
expect_status 0
"$PY" - "$TOP/tests/cli/safetensors" <<'PY' || fail "float8 values widened wrong"
import sys
sys.path.insert(0, sys.argv[1])
import h5py, st
f = h5py.File("f8.h5", "r")
for name, dtype, shape, raw in st.read("f8.safetensors")[1]:
    assert list(f[name][()]) == [st.f8_value(b, dtype) for b in raw], (name, f[name][()])
PY
# and back, narrowed by round to nearest even: the same patterns
run ckpt-merge --cast -o f8c.safetensors f8.safetensors f8.h5
expect_status 0
cmp -s f8c.safetensors f8.safetensors || fail "float64 -> float8 did not give the patterns back"
# the mean of float8 values rounded once, to nearest even: (1 + 1.125)/2 is
# a tie that goes to 1, (1.125 + 1.25)/2 one that goes to 1.25
"$PY" -c "import sys; sys.path.insert(0, '$TOP/tests/cli/safetensors'); import st, numpy as np
st.write('p.safetensors', [('w', np.array([0x38, 0x39], 'u1'), 'F8_E4M3')])
st.write('q.safetensors', [('w', np.array([0x39, 0x3a], 'u1'), 'F8_E4M3')])" || fail "no h5py"
run ckpt-average -o pq.safetensors p.safetensors q.safetensors
expect_status 0
"$PY" -c "import sys; sys.path.insert(0, '$TOP/tests/cli/safetensors'); import st
assert st.read('pq.safetensors')[1][0][3] == bytes([0x38, 0x3a]), st.read('pq.safetensors')" ||
	fail "the float8 mean is not rounded to nearest even"
