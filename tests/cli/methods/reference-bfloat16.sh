# Every merge method on bfloat16 models of 200 tensors against ref.py: the man
# page's formulas again in exact rational arithmetic (fractions), DARE's
# mask from its specification, rounded once to nearest even; bit for bit.
need_h5py
not_under_valgrind # (reference-float32 runs the same engine under it)
cd "$T"
"$PY" "$TOP/tests/cli/methods/ref.py" suite bf16 || fail "not the reference's bits"
