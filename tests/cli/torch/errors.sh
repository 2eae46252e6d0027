# A damaged PyTorch file is one line naming the file and what is wrong,
# exit 2, nothing written: a zip cut short (no directory), a storage member
# missing, a storage shorter than its tensors, data.pkl changed (its CRC),
# a legacy file cut inside its pickles and inside its storages, a pickle
# cut before its STOP.
need_torch
"$PY" - <<'PY' || fail "cannot make the files"
import os, zipfile, torch
sd = {"a": torch.arange(64, dtype=torch.float32), "b": torch.ones(8, dtype=torch.float64)}
torch.save(sd, "ok.pt")
torch.save(sd, "cut.pt")
os.truncate("cut.pt", os.path.getsize("cut.pt") - 30)
def rewrite(path, change):
    with zipfile.ZipFile("ok.pt") as z:
        members = {n: z.read(n) for n in z.namelist()}
    change(members)
    with zipfile.ZipFile(path, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)
def drop(m):
    del m[[n for n in m if n.endswith("data/1")][0]]
def shorten(m):
    k = [n for n in m if n.endswith("data/0")][0]
    m[k] = m[k][:100]
def cut_pickle(m):
    k = [n for n in m if n.endswith("data.pkl")][0]
    m[k] = m[k][:-1]
rewrite("gone.pt", drop)
rewrite("short.pt", shorten)
rewrite("nostop.pt", cut_pickle)
data = open("ok.pt", "rb").read()
i = data.index(b"data.pkl") + 8        # a byte of data.pkl's contents
with open("crc.pt", "wb") as f:
    f.write(data[:i + 40] + bytes([data[i + 40] ^ 1]) + data[i + 41:])
torch.save(sd, "legacy.pt", _use_new_zipfile_serialization=False)
n = os.path.getsize("legacy.pt")
open("legacy-pickles.pt", "wb").write(open("legacy.pt", "rb").read()[:60])
open("legacy-data.pt", "wb").write(open("legacy.pt", "rb").read()[:n - 10])
PY
fail_with() { # FILE PATTERN
	run ckpt-average -o out.h5 ok.pt "$1"
	expect_error ckpt-average "$2"
	expect_no_file out.h5
}
fail_with cut.pt '^ckpt-average: cut.pt: no zip archive \(no end of central directory\)$|cut.pt: .*(truncated|damaged)'
fail_with gone.pt "^ckpt-average: gone.pt: storage '1' is not in the archive \(no [a-z]*/data/1\)$"
fail_with short.pt "^ckpt-average: short.pt: storage '0' holds 100 bytes, its tensors need 256 \(damaged\)$"
fail_with nostop.pt '^ckpt-average: nostop.pt: member .*data.pkl.* fails its CRC|^ckpt-average: nostop.pt: the pickle ends before its STOP \(truncated\?\)$'
fail_with crc.pt "^ckpt-average: crc.pt: member '[a-z]*/data.pkl' fails its CRC \(damaged zip\)$"
fail_with legacy-pickles.pt '^ckpt-average: legacy-pickles.pt: the file ends inside its pickles \(truncated\?\)$'
fail_with legacy-data.pt "^ckpt-average: legacy-data.pt: storage '[0-9]*' is cut short \(truncated\?\)$"
run ckpt-average -o out.h5 ok.pt legacy.pt
expect_status 0
