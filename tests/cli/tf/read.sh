# A TensorFlow bundle, written here by an independent writer (mkbundle.py,
# from the formats' definitions: every numeric type numpy has, scalars, a
# string tensor), read by the programs: listed with its names, types and
# shapes; converted to safetensors with every value bitwise as numpy has
# it and the string tensor left out with one warning; several data shards
# and table blocks of a few entries read the same.
need_h5py
cd "$T"
M="$TOP/tests/cli/tf/mkbundle.py"
set -- 'dense/kernel=float32:3x4:1' 'dense/bias=float64:4:2' 'step=int64::3' \
	'h=float16:5:4' 'u8=uint8:2x2:5' 'flag=bool:3:6' 'i8=int8:3:7' 'i16=int16:3:8' \
	'i32=int32:2x3:9' 'u16=uint16:3:10' 'u32=uint32:3:11' 'u64=uint64:3:12'
"$PY" "$M" m "$@" --string _CHECKPOINTABLE_OBJECT_GRAPH --npz m.npz || fail "cannot make m"
"$PY" "$M" s "$@" --string _CHECKPOINTABLE_OBJECT_GRAPH --shards 3 --block-size 24 ||
	fail "cannot make s"
run ckpt-read m
expect_status 0
expect_out '^dense/kernel +float32 +\[3,4\] +12 +48$'
expect_out '^step +int64 +\[\] +1 +8$'
expect_out '^_CHECKPOINTABLE_OBJECT_GRAPH +string +\[\] +1 '
expect_out '^13 variables, 50 parameters'
for f in m s; do
	run ckpt-average -o $f.safetensors $f
	expect_status 0
	"$PY" "$TOP/tests/cli/tf/check_st.py" $f.safetensors m.npz || fail "$f: values differ"
	[ "$(cat "$T/err")" = "ckpt-average: $f.safetensors: left out what \
safetensors cannot hold: 1 non-numeric variable ('_CHECKPOINTABLE_OBJECT_GRAPH')" ] ||
		fail "not one warning: $(cat "$T/err")"
done
run ckpt-diff --bitwise m s
expect_status 0
run ckpt-read --stats --only dense/bias m.index
expect_status 0
expect_out '^dense/bias +float64 +\[4\]'
