# A .keras archive's members as Keras sees them (Python's zipfile): of two
# members of one name (an archive appended to) the last is read and the
# only one kept in the output, with one warning naming it; directory
# entries and symbolic-link members are kept in the output.
need_h5py
cd "$T"
"$PY" "$TOP/tests/cli/keras/mkkeras.py" . a 1 && "$PY" "$TOP/tests/cli/keras/mkkeras.py" . b 2 ||
	fail "cannot make the Keras files"
"$PY" - <<'PY' || fail "cannot make the archives"
import warnings, zipfile
warnings.simplefilter("ignore")  # zipfile's "Duplicate name"
src = zipfile.ZipFile("a.keras")
with zipfile.ZipFile("dup.keras", "w") as z:
    for i in src.infolist():
        z.writestr(i, src.read(i))
    z.writestr("model.weights.h5", open("b.weights.h5", "rb").read())
with zipfile.ZipFile("odd.keras", "w") as z:
    z.writestr(zipfile.ZipInfo("assets/"), b"")
    for i in src.infolist():
        z.writestr(i, src.read(i))
    link = zipfile.ZipInfo("assets/latest")
    link.create_system = 3
    link.external_attr = (0o120777 << 16)
    z.writestr(link, b"vocab.txt")
PY
run ckpt-diff dup.keras b.weights.h5
expect_status 0
grep -q "member 'model.weights.h5' is in the archive more than once: the last one read" err ||
	fail "no warning: $(cat err)"
run ckpt-average -o out.keras dup.keras
expect_status 0
[ "$(wc -l <err)" -eq 1 ] || fail "stderr: $(cat err)"
"$PY" - <<'PY' || fail "out.keras"
import zipfile
z = zipfile.ZipFile("out.keras")
names = [i.filename for i in z.infolist()]
assert names.count("model.weights.h5") == 1, names
assert z.read("model.weights.h5")[:8] == b"\x89HDF\r\n\x1a\n"
PY
run ckpt-diff out.keras b.weights.h5
expect_status 0

run ckpt-average -o odd-out.keras odd.keras a.keras
expect_status 0
expect_quiet_stderr
"$PY" - <<'PY' || fail "odd-out.keras lost members"
import stat, zipfile
a, b = zipfile.ZipFile("odd.keras"), zipfile.ZipFile("odd-out.keras")
assert [i.filename for i in a.infolist()] == [i.filename for i in b.infolist()], b.namelist()
d = b.getinfo("assets/")
assert d.is_dir(), d
l = b.getinfo("assets/latest")
assert stat.S_ISLNK(l.external_attr >> 16), oct(l.external_attr >> 16)
assert b.read(l) == b"vocab.txt", b.read(l)
PY
run ckpt-diff odd-out.keras a.weights.h5
expect_status 0
