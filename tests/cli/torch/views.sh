# Tensors as torch defines them: storage offsets and strides honoured (a
# transpose, a slice at an offset, a column, an expansion with stride 0,
# every fifth element: values as torch.load gives them); tied weights (one
# Parameter under two names, a detached view of it) listed once with their
# further names, which a flat output leaves out with one warning.  A
# transpose larger than a slab (4 MiB) is read in several.
need_torch
"$PY" "$TOP/tests/cli/torch/mktorch.py" views v.pt || fail "cannot make v.pt"
"$PY" "$TOP/tests/cli/torch/mktorch.py" views v-legacy.pt --legacy || fail "cannot make v-legacy.pt"
run ckpt-read v.pt
expect_status 0
expect_out '^t +float32 +\[6,4\] +24 +96$'
expect_out '^head.weight -> embed.weight$'
expect_out '^head2.weight -> embed.weight$'
expect_no_out '^head.weight +float32'
expect_out '^9 variables, 1200081 parameters, 4800348 bytes$'
run ckpt-read -v --only t --only slice v.pt
expect_out "^t .* strided, storage '[0-9]*' at element 0$"
expect_out "^slice .* strided, storage '[0-9]*' at element 8$"
run ckpt-read --values --only t v.pt
expect_out '^0 6 12 18$'
expect_out '^5 11 17 23$'
for f in v v-legacy; do
	run ckpt-average -o $f.safetensors $f.pt
	expect_status 0
	[ "$(cat "$T/err")" = "ckpt-average: $f.safetensors: left out what safetensors \
cannot hold: 2 links ('head.weight', ...)" ] || fail "not one warning: $(cat "$T/err")"
	"$PY" "$TOP/tests/cli/torch/check.py" $f.pt $f.safetensors || fail "$f: values differ"
done
