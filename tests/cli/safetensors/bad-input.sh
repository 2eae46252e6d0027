# Broken safetensors files, one rule of the format broken in each: every
# reading program says which in one line naming the file, exits 2, and
# writes nothing.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/safetensors/mkbad.py" . >cases.tsv || fail "cannot make the broken files"
"$PY" -c "import sys; sys.path.insert(0, '$TOP/tests/cli/safetensors'); import st, numpy as np
st.write('good.safetensors', [('a', np.zeros(2, 'f4'))])" || fail "cannot make good.safetensors"
n=0
tab=$(printf '\t')
while IFS="$tab" read -r file pattern; do
	run ckpt-read "$file"
	expect_error ckpt-read "^ckpt-read: $file: .*$pattern"
	run ckpt-average -o out.safetensors good.safetensors "$file"
	expect_error ckpt-average "$file: .*$pattern"
	expect_no_file out.safetensors
	run ckpt-diff good.safetensors "$file"
	expect_error ckpt-diff "$file: .*$pattern"
	run ckpt-merge -o out.h5 "$file" good.safetensors
	expect_error ckpt-merge "$file: .*$pattern"
	expect_no_file out.h5
	n=$((n + 1))
done <cases.tsv
[ "$n" -ge 19 ] || fail "only $n broken files"
