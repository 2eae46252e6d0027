# The bundles TensorFlow wrote (../shared: SavedModels of tensorflow/serving,
# TF1 Saver and TF2 names, plain and Snappy-compressed index blocks) read
# with the values SOURCES.md gives, by directory, prefix and .index alike;
# TF2's object graph (a string tensor, its CRC checked) compares equal to
# itself; averaged into HDF5 with the object graph left out, in one warning;
# written back as bundles, byte for byte where TensorFlow wrote no Snappy.
need_real
[ -d "$REAL/tf" ] || skip "../shared/testdata/real/tf is absent"
cd "$T"
values() { ckpt-read -q --values "$1" | tr '\n' ' ' | sed 's/ *$//'; }
[ "$(values "$REAL/tf/half_plus_three")" = "a float32 [] 0.5 b float32 [] 3 c float32 [] 3" ] ||
	fail "half_plus_three: $(values "$REAL/tf/half_plus_three")"
[ "$(values "$REAL/tf/half_plus_two_cpu/variables/variables")" = \
  "a float32 [] 0.5 a2 float32 [] 0.5 b float32 [] 2 c float32 [] 3 c2 float32 [] 3" ] ||
	fail "half_plus_two_cpu: $(values "$REAL/tf/half_plus_two_cpu/variables/variables")"
[ "$(values "$REAL/tf/counter/variables/variables.index")" = "counter float32 [] 0" ] ||
	fail "counter: $(values "$REAL/tf/counter/variables/variables.index")"
run ckpt-read "$REAL/tf/half_plus_two_tf2"
expect_status 0
expect_out '^_CHECKPOINTABLE_OBJECT_GRAPH +string +\[\] +1 +619$'
expect_out '^b/\.ATTRIBUTES/VARIABLE_VALUE +float32 +\[\] +1 +4$'
run ckpt-diff --bitwise "$REAL/tf/half_plus_two_tf2" "$REAL/tf/half_plus_two_tf2"
expect_status 0
run ckpt-average -o avg.h5 "$REAL/tf/half_plus_two_tf2" "$REAL/tf/half_plus_two_tf2"
expect_status 0
[ "$(cat "$T/err")" = "ckpt-average: avg.h5: left out what HDF5 cannot hold: 1 \
non-numeric variable ('_CHECKPOINTABLE_OBJECT_GRAPH')" ] || fail "not one warning: $(cat "$T/err")"
[ "$(values avg.h5)" = "a/.ATTRIBUTES/VARIABLE_VALUE float32 [] 0.5 \
b/.ATTRIBUTES/VARIABLE_VALUE float32 [] 2 c/.ATTRIBUTES/VARIABLE_VALUE float32 [] 3" ] ||
	fail "average: $(values avg.h5)"
# the variables both TF1 SavedModels have: b is 3 and 2
run ckpt-average --partial -o p.h5 "$REAL/tf/half_plus_three" "$REAL/tf/half_plus_two_cpu"
expect_status 0
[ "$(values p.h5)" = "a float32 [] 0.5 b float32 [] 2.5 c float32 [] 3" ] ||
	fail "partial: $(ckpt-read -q --values p.h5)"
# written back: what TensorFlow wrote uncompressed comes out byte for byte;
# the Snappy-compressed ones with the same data file (TF2's object graph
# last, where TensorFlow put it)
for d in counter half_plus_three half_plus_two_cpu half_plus_two_tf2; do
	run ckpt-average -o "$d.index" "$REAL/tf/$d" "$REAL/tf/$d"
	expect_status 0
	cmp -s "$d.data-00000-of-00001" "$REAL/tf/$d/variables/variables.data-00000-of-00001" ||
		fail "$d: the data file differs"
	case $d in
	counter | half_plus_three)
		cmp -s "$d.index" "$REAL/tf/$d/variables/variables.index" || fail "$d: the index differs" ;;
	esac
	run ckpt-diff --bitwise "$d.index" "$REAL/tf/$d"
	expect_status 0
done
# into HDF5 and back: the same bundle, byte for byte
run ckpt-average -o h.h5 "$REAL/tf/half_plus_three"
expect_status 0
run ckpt-average -o back.index h.h5
expect_status 0
cmp -s back.index "$REAL/tf/half_plus_three/variables/variables.index" &&
	cmp -s back.data-00000-of-00001 "$REAL/tf/half_plus_three/variables/variables.data-00000-of-00001" ||
	fail "half_plus_three through HDF5 is not the same bundle"
