# Unusual but valid files (mkcorpus.py: external storage, virtual datasets,
# hard links, cycles, soft/external/dangling links, filters, references,
# vlen, enums, compounds, opaque, big-endian, user block, libver latest,
# track_order, SWMR, fill values, scalars, empty and null shapes) through
# every program that writes: the output keeps every name, value, attribute
# and committed type (same.py, by h5py); ckpt-read lists and ckpt-diff finds
# each file equal to itself.  tests/guard.sh checks that no input changed.
slow_case
need_h5py
not_under_valgrind
mkdir c
"$PY" "$TOP/tests/cli/integrity/mkcorpus.py" c || fail "cannot make the corpus"
cd c
same() { "$PY" "$TOP/tests/cli/integrity/same.py" "$@"; }
for f in *.h5; do
	[ "$f" != vsrc.h5 ] || continue
	run ckpt-read --stats "$f"
	expect_status 0
	run ckpt-diff "$f" "$f"
	expect_status 0
	run ckpt-average -q -o o.h5 "$f" "$f"
	expect_status 0
	same "$f" o.h5 || fail "$f: ckpt-average lost something"
	run ckpt-diff o.h5 "$f"
	[ "$rc" -eq 0 ] || fail "$f: average differs from the input: $(cat "$T/out")"
	run ckpt-merge -q -f -o o.h5 "$f" "$f"
	expect_status 0
	same "$f" o.h5 || fail "$f: ckpt-merge lost something"
	run ckpt-flatten --dtype f64 -o flat.bin "$f"
	expect_status 0
	run ckpt-unflatten -q -f --dtype f64 --template "$f" -o o.h5 flat.bin
	expect_status 0
	same "$f" o.h5 || fail "$f: ckpt-unflatten lost something"
	run ckpt-merge -q --split 2 -o 's%d.h5' "$f"
	expect_status 0
	run ckpt-merge -q -f --join -o o.h5 s0.h5 s1.h5
	expect_status 0
	# references across shards cannot be kept (see ckpt-merge(1))
	[ "$f" = references.h5 ] || same "$f" o.h5 || fail "$f: split+join lost something"
	rm -f o.h5 s0.h5 s1.h5 flat.bin
done
# what split says when references cross shards
run ckpt-merge --split 2 -o 's%d.h5' references.h5
expect_status 0
grep -q "reference.* to objects not in the output: left null" "$T/err" ||
	fail "no warning for references across shards: $(cat "$T/err")"
