# An output named .pt, .pth, .bin or .ckpt is a PyTorch file in the zip
# format as current torch writes it: from a PyTorch base, its structure and
# values kept (a Lightning checkpoint's epoch and hyper-parameters, dict and
# OrderedDict, Parameters, tied weights one object again, a detached copy a
# tensor on the same storage), loading with torch.load to what the base
# loads to; from safetensors or HDF5, an OrderedDict of name -> tensor that
# loads with weights_only=True.  Every member stored with its data at a
# multiple of 64 bytes; data.pkl first; the version records.  The average
# of two files is the exact mean rounded once.  A type torch cannot hold
# is refused before anything is written.
need_torch
M="$TOP/tests/cli/torch/mktorch.py"
S="$TOP/tests/cli/torch/same.py"
for k in dtypes views nested params; do
	"$PY" "$M" $k $k.pt || fail "cannot make $k.pt"
done
"$PY" "$M" dtypes legacy.pt --legacy || fail "cannot make legacy.pt"
for k in dtypes views params legacy; do
	run ckpt-average -o out-$k.pt $k.pt
	expect_status 0
	expect_quiet_stderr
	"$PY" "$S" $k.pt out-$k.pt --weights-only || fail "$k: $(cat "$T/out")"
done
# torch 1.13's weights_only has no BINFLOAT: the floats of a Lightning file
run ckpt-average -o out-nested.ckpt nested.pt
expect_status 0
expect_quiet_stderr
"$PY" "$S" nested.pt out-nested.ckpt || fail "nested differs"
"$PY" - <<'PY' || fail "tied weights not kept"
import torch
b = torch.load("out-views.pt")
assert b["embed.weight"] is b["head.weight"]
assert type(b["head2.weight"]) is torch.Tensor
assert b["head2.weight"].data_ptr() == b["embed.weight"].data_ptr()
PY
# the zip as torch writes it
"$PY" - out-dtypes.pt <<'PY' || fail "zip layout"
import struct, sys, zipfile
path = sys.argv[1]
raw = open(path, "rb").read()
with zipfile.ZipFile(path) as z:
    infos = z.infolist()
    names = [i.filename for i in infos]
    assert names[0] == "archive/data.pkl", names
    for rec in ("archive/byteorder", "archive/version", "archive/.format_version",
                "archive/.storage_alignment", "archive/.data/serialization_id"):
        assert rec in names, rec
    assert z.read("archive/byteorder") == b"little" and z.read("archive/version") == b"3\n"
    for i in infos:
        assert i.compress_type == zipfile.ZIP_STORED, i.filename
        n, x = struct.unpack("<HH", raw[i.header_offset + 26:i.header_offset + 30])
        data = i.header_offset + 30 + n + x
        if i.filename.startswith("archive/data/"):
            assert data % 64 == 0, (i.filename, data)
    assert z.testzip() is None
PY
# from safetensors and HDF5: a flat OrderedDict
run ckpt-average -o d.safetensors dtypes.pt
expect_status 0
for f in d.safetensors; do
	run ckpt-average -o flat.bin $f
	expect_status 0
	expect_quiet_stderr
done
"$PY" - <<'PY' || fail "flat output"
import collections, torch
a = torch.load("dtypes.pt")
b = torch.load("flat.bin", weights_only=True)
assert type(b) is collections.OrderedDict and list(b) == list(a), list(b)
for k in a:
    assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape
    assert a[k].numel() == 0 or torch.equal(a[k].view(-1).view(torch.uint8), b[k].view(-1).view(torch.uint8)), k
PY
run ckpt-average -o p.h5 params.pt
expect_status 0
run ckpt-average -o back.pth p.h5
expect_status 0
run ckpt-diff --bitwise params.pt back.pth
expect_status 0
# the exact mean of two files, rounded once
"$PY" "$M" dtypes d2.pt --seed 2 || fail "cannot make d2.pt"
run ckpt-average -o mean.pt --only 'layer.*' dtypes.pt d2.pt
expect_status 0
"$PY" - <<'PY' || fail "mean differs"
import torch
a, b, m = torch.load("dtypes.pt"), torch.load("d2.pt"), torch.load("mean.pt")
for k in ("layer.float16", "layer.bfloat16", "layer.float32"):
    want = ((a[k].double() + b[k].double()) / 2).to(a[k].dtype)
    ok = (want == m[k]) | (want.isnan() & m[k].isnan())
    assert bool(ok.all()), k
PY
# a type torch cannot hold (uint16): refused, nothing written
"$PY" -c '
import h5py, numpy as np
with h5py.File("u16.h5", "w") as f:
    f["w"] = np.arange(3, dtype="u2")
' || fail "cannot make u16.h5"
run ckpt-average -o u16.pt u16.h5
expect_error ckpt-average "^ckpt-average: u16.pt: variable 'w': a PyTorch file cannot hold uint16 values"
expect_no_file u16.pt
