# A PyTorch file of over 4 GiB (zip64: a storage of 4.4 GB, then a small
# one whose local header lies past 4 GiB), as torch.save writes it: read,
# and written again - the output loads in torch and in Python's zipfile
# (sizes and offsets through zip64 records, every CRC checked) with the
# same values.  About 13 GB of disk and 9 GB of memory (torch holds the
# tensor): run only with CKPT_LARGE_TESTS=1.
[ -n "${CKPT_LARGE_TESTS:-}" ] || skip "large (13 GB of disk): set CKPT_LARGE_TESTS=1"
not_under_valgrind
need_torch
slow_case
"$PY" - <<'PY' || fail "cannot make big.pt"
import torch
t = torch.zeros(1_100_000_000)
t[0], t[2**30], t[-1] = 1, 3, 2
torch.save({"big": t, "small": torch.arange(5.0)}, "big.pt")
PY
run ckpt-read big.pt
expect_status 0
expect_out '^big +float32 +\[1100000000\] +1100000000 +4400000000$'
run ckpt-average -o out.pt big.pt
expect_status 0
run ckpt-read --values --only small out.pt
expect_out '^0 1 2 3 4$'
"$PY" - <<'PY' || fail "out.pt does not load as it should"
import torch, zipfile
z = zipfile.ZipFile("out.pt")
assert z.testzip() is None
big = [i for i in z.infolist() if i.filename == "archive/data/0"][0]
small = [i for i in z.infolist() if i.filename == "archive/data/1"][0]
assert big.file_size == 4400000000 and small.header_offset > 2**32
b = torch.load("out.pt")
t = b["big"]
assert t.shape == (1_100_000_000,) and t[0] == 1 and t[2**30] == 3 and t[-1] == 2
assert float(t.sum()) == 6 and torch.equal(b["small"], torch.arange(5.0))
PY
rm -f big.pt out.pt
