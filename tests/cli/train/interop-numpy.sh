# The same training in numpy float32 agrees on w and b to 1e-6: one worker,
# and four workers in both sync modes.
need_h5py
for case in "1 params" "4 params" "4 grads"; do
	set -- $case
	ckpt-train -q --workers $1 --sync $2 -o "$T/m$1$2.h5" || fail "ckpt-train $case"
	ref=$("$PY" "$TOP/tests/interop/train_ref.py" $1 $2 201) || fail "numpy $case"
	got=$(ckpt-read --tsv --values "$T/m$1$2.h5" | awk -F'\t' '$2 == "w" { w = $4 } $2 == "b" { b = $4 } END { print w, b }')
	awk -v g="$got" -v r="$ref" 'BEGIN { split(g, a, " "); split(r, b, " ");
		exit !((a[1] - b[1])^2 < 1e-12 && (a[2] - b[2])^2 < 1e-12) }' ||
		fail "$case: ckpt-train $got, numpy $ref"
done
