# torch.save files written by torch itself (mktorch.py), zip and legacy,
# read by the programs: every dtype torch 1.13 has ckpt reads (NaN,
# infinities, subnormals, a scalar, an empty tensor), converted to
# safetensors with every tensor's bytes as torch.load gives them (check.py);
# the zip and legacy files hold the same; standard input; a re-zipped file
# (deflated members: inflated into temporaries) reads the same.
need_torch
M="$TOP/tests/cli/torch/mktorch.py"
C="$TOP/tests/cli/torch/check.py"
"$PY" "$M" dtypes d.pt || fail "cannot make d.pt"
"$PY" "$M" dtypes d-legacy.pt --legacy || fail "cannot make d-legacy.pt"
run ckpt-read d.pt
expect_status 0
expect_out '^layer.bfloat16 +bfloat16 +\[4,5\] +20 +40$'
expect_out '^i64 +int64 +\[4\] +4 +32$'
expect_out '^mask +bool +\[3\] +3 +3$'
expect_out '^scalar +float32 +\[\] +1 +4$'
expect_out '^empty +float32 +\[0,3\] +0 +0$'
expect_out '^12 variables, 124 parameters, 426 bytes$'
for f in d d-legacy; do
	run ckpt-average -o $f.safetensors $f.pt
	expect_status 0
	expect_quiet_stderr
	"$PY" "$C" $f.pt $f.safetensors || fail "$f: values differ from torch.load's"
done
run ckpt-diff --bitwise d.pt d-legacy.pt
expect_status 0
run sh -c 'ckpt-read --values --only i64 - < d.pt'
expect_status 0
expect_out '^-9223372036854775808 9223372036854775807 0 12345678901234567$'
# a re-zipped file: members deflated, in another order
"$PY" - <<'PY' || fail "cannot re-zip"
import zipfile
with zipfile.ZipFile("d.pt") as a, zipfile.ZipFile("z.pt", "w", zipfile.ZIP_DEFLATED) as b:
    names = a.namelist()
    for n in [names[0]] + names[:0:-1]:
        b.writestr(n, a.read(n))
PY
run ckpt-read -v --only layer.float32 z.pt
expect_status 0
expect_out "^layer.float32 .*storage '[0-9]*' at element 0 \(deflated\)$"
run ckpt-diff --bitwise d.pt z.pt
expect_status 0
