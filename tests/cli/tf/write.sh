# TensorFlow bundles written: PREFIX.index and PREFIX.data-00000-of-00001,
# read back by an independent reader (readbundle.py: every block's and every
# tensor's CRC, the keys' order, the index's separators, the header) with
# every value what the same program writes into safetensors, bit for bit;
# every type TensorFlow has (bfloat16 by --dtype); the base's tensors ckpt
# does not compute with (a string, a list of strings, complex numbers, a
# variant) carried byte for byte; a bare prefix for a bundle base; conversions from
# safetensors and HDF5 and back bitwise, what a bundle cannot hold named in
# one warning; thousands of tensors over several table blocks.
need_h5py
cd "$T"
M="$TOP/tests/cli/tf/mkbundle.py"
RB="$TOP/tests/cli/tf/readbundle.py"
set -- 'k=float32:64x3:' 'h=float16:50:' 'd=float64:7:' 'n=int64:5:' 'i=int32:2x2:' \
	'u=uint8:9:' 's=int16:3:' 'c=int8:4:' 'w=uint16:2:' 'v=uint32:3:' 'q=uint64:1:' \
	'f=bool:6:' 'z=float32:0x4:' 'one=float32::'
for i in 1 2 3; do
	specs=$(for s; do printf '%s%s ' "$s" "$i"; done)
	# shellcheck disable=SC2086
	"$PY" "$M" b$i $specs --string _CHECKPOINTABLE_OBJECT_GRAPH --strings names --raw cx=8 \
		--raw var=21 ||
		fail "cannot make b$i"
done

run ckpt-average -o avg.index b1 b2 b3
expect_status 0
expect_quiet_stderr
[ -f avg.data-00000-of-00001 ] || fail "no data file: $(ls)"
mkdir s1 s
"$PY" "$RB" avg --npz avg.npz --raw s || fail "avg is no valid bundle"
"$PY" "$RB" b1 --raw s1 || fail "b1 is no valid bundle"
for t in _CHECKPOINTABLE_OBJECT_GRAPH names cx var; do
	cmp -s s/$t s1/$t || fail "the tensor $t changed"
done
ckpt-average -q -o avg.safetensors b1 b2 b3 || fail "average into safetensors"
"$PY" "$TOP/tests/cli/tf/check_st.py" avg.safetensors avg.npz || fail "values differ"
# the data in the base's order (the strings first, as mkbundle wrote them)
[ "$("$PY" "$RB" avg --order | sed -n 1,5p | tr '\n' ' ')" = \
  "_CHECKPOINTABLE_OBJECT_GRAPH names cx var k " ] ||
	fail "data order: $("$PY" "$RB" avg --order | tr '\n' ' ')"

# a bare prefix, its base a bundle: the same two files
run ckpt-average -o bare b1 b2 b3
expect_status 0
cmp -s bare.index avg.index && cmp -s bare.data-00000-of-00001 avg.data-00000-of-00001 ||
	fail "a bare prefix wrote another bundle"

# bfloat16, and the same bits as in safetensors
run ckpt-average --dtype bf16 --only k --only h --only d --only one -o bf.index b1 b2 b3
expect_status 0
"$PY" "$RB" bf --npz bf.npz || fail "bf is no valid bundle"
ckpt-average -q --dtype bf16 --only k --only h --only d --only one -o bf.safetensors b1 b2 b3 || fail "bf16 st"
run ckpt-diff --bitwise --only k --only h --only d --only one bf.index bf.safetensors
expect_status 0
ckpt-read bf.index | grep -Eq '^k +bfloat16 +\[64,3\]' || fail "k is not bfloat16"

# safetensors -> bundle -> HDF5 -> bundle: every value bitwise
ckpt-average -q -o b1.safetensors b1 2>/dev/null || fail "b1 into safetensors"
run ckpt-average -o from_st.index b1.safetensors
expect_status 0
"$PY" "$RB" from_st || fail "from_st is no valid bundle"
ckpt-average -q -o from_st.h5 from_st.index || fail "into HDF5"
run ckpt-average -o back.index from_st.h5
expect_status 0
cmp -s back.index from_st.index && cmp -s back.data-00000-of-00001 from_st.data-00000-of-00001 ||
	fail "HDF5 and back is not the same bundle"
run ckpt-diff --bitwise --exclude _CHECKPOINTABLE_OBJECT_GRAPH --exclude names \
	--exclude cx --exclude var b1 back.index
expect_status 0

# what a bundle cannot hold, in one warning: a file's texts, a program's
ckpt-train -q --iterations 5 -o trained.h5 || fail "ckpt-train"
for out in trained.index t2.index; do
	if [ $out = trained.index ]; then
		run ckpt-train --iterations 5 -o $out
	else
		run ckpt-average -o $out trained.h5
	fi
	expect_status 0
	grep -Eq "^ckpt-[a-z]+: $out: left out what a TensorFlow bundle cannot hold: [0-9]+ (texts? \('|attributes \(on '/')" \
		"$T/err" || fail "no warning: $(cat "$T/err")"
	[ "$(grep -c '^ckpt-' "$T/err")" -eq 1 ] || fail "not one warning: $(cat "$T/err")"
	"$PY" "$RB" ${out%.index} || fail "$out is no valid bundle"
done
run ckpt-diff --bitwise trained.h5 t2.index
expect_status 0

# thousands of tensors: several blocks in the table, found again by name
# (not under valgrind, minutes there: ASan and the unit test's small blocks
# cover it)
if [ -z "${CKPT_VALGRIND:-}" ]; then
	"$PY" - <<'PY' || fail "cannot make many.h5"
import h5py, numpy as np
with h5py.File("many.h5", "w") as f:
    for i in range(12000):
        f["model/layer_%05d/w" % i] = np.full(3, i, "f4")
    f["\xff\xff/last"] = np.arange(2, dtype="f4")
PY
	run ckpt-average -o many.index many.h5
	expect_status 0
	[ "$("$PY" "$RB" many --blocks)" -ge 2 ] || fail "many: not several blocks, or no valid bundle"
	[ "$(ckpt-read -q --values --only model/layer_04711/w many.index | tr '\n' ' ')" = \
	  "model/layer_04711/w float32 [3] 4711 4711 4711 " ] ||
		fail "model/layer_04711/w: $(ckpt-read -q --values --only model/layer_04711/w many.index)"
	run ckpt-diff --bitwise many.h5 many.index
	expect_status 0
fi

# ckpt-merge and ckpt-unflatten write bundles as well
"$PY" "$M" extra 'e=float32:3:9' 'g=float64:2:8' || fail "cannot make extra"
run ckpt-merge --add -o merged.index b1 extra
expect_status 0
"$PY" "$RB" merged || fail "merged is no valid bundle"
run ckpt-diff --bitwise merged.index extra --only e --only g
expect_status 0
ckpt-flatten -q --dtype f64 -o extra.bin extra || fail "flatten"
run ckpt-unflatten --dtype f64 --template extra -o un.index extra.bin
expect_status 0
"$PY" "$RB" un || fail "un is no valid bundle"
run ckpt-diff --bitwise un.index extra
expect_status 0

# ckpt-merge --split K -o PREFIX.index: one bundle, K data shards, each
# tensor's shard in its entry; read back as one checkpoint
run ckpt-merge --split 3 --by size -o sp.index b1
expect_status 0
[ "$(ls sp.*)" = "sp.data-00000-of-00003
sp.data-00001-of-00003
sp.data-00002-of-00003
sp.index" ] || fail "split: $(ls sp.*)"
"$PY" "$RB" sp || fail "sp is no valid bundle"
run ckpt-diff --bitwise sp.index b1
expect_status 0
run ckpt-merge -n --split 2 -o sq.index b1
expect_status 0
expect_out '^names	sq\.data-00001-of-00002$'
expect_no_file sq.index sq.data-00000-of-00002

# Replacing a bundle (-f): the new data files never take the old ones'
# names (one more data shard, empty, when the counts would match), so the
# old bundle is whole until the new index replaces it; then its data files
# go.  Replaced again, back to one data file.
ckpt-average -q -o r.index b1 || fail "r"
run ckpt-average -f -o r.index b1 b2
expect_status 0
[ "$(ls r.*)" = "r.data-00000-of-00002
r.data-00001-of-00002
r.index" ] || fail "replaced: $(ls r.*)"
[ ! -s r.data-00001-of-00002 ] || fail "the extra data shard is not empty"
"$PY" "$RB" r || fail "r is no valid bundle"
ckpt-average -q -o ab.h5 b1 b2 2>/dev/null || fail "ab.h5"
run ckpt-diff --bitwise --exclude _CHECKPOINTABLE_OBJECT_GRAPH --exclude names --exclude cx \
	--exclude var r.index ab.h5
expect_status 0
run ckpt-merge -f --split 2 -o r.index b1
expect_status 0
[ "$(ls r.*)" = "r.data-00000-of-00003
r.data-00001-of-00003
r.data-00002-of-00003
r.index" ] || fail "split over a 2-shard bundle: $(ls r.*)"
run ckpt-average -f -o r.index b1
expect_status 0
[ "$(ls r.*)" = "r.data-00000-of-00001
r.index" ] || fail "replaced again: $(ls r.*)"
"$PY" "$RB" r || fail "r is no valid bundle"
