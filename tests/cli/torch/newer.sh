# A file as current torch writes it, made by hand (mknew.py: torch 1.13
# cannot make it): its newer records, float8 tensors (E4M3 "fn" and E5M2,
# NaN and infinity), _rebuild_from_type_v2, _rebuild_parameter_with_state,
# an UntypedStorage, protocol 4's opcodes.  Read with their values; written
# back, the same values, and a pickle Python's pickletools reads through
# (it checks every opcode's stack) naming the float8 storage classes.
need_torch
"$PY" "$TOP/tests/cli/torch/mknew.py" new.pt || fail "cannot make new.pt"
run ckpt-read new.pt
expect_status 0
expect_out '^e4m3 +float8_e4m3 +\[4\] +4 +4$'
expect_out '^e5m2 +float8_e5m2 +\[3\] +3 +3$'
expect_out '^raw +uint8 +\[3\] +3 +3$'
run ckpt-read --values new.pt
expect_out '^1 2 -1 nan$'
expect_out '^1 2 inf$'
expect_out '^1.5 -2.5$'
expect_out '^0.25 4$'
expect_out '^1 2 3$'
run ckpt-average -o out.pt new.pt
expect_status 0
run ckpt-diff --bitwise new.pt out.pt
expect_status 0
"$PY" - <<'PY' || fail "the pickle written is not what pickletools reads"
import io, pickletools, zipfile
out = io.StringIO()
pickletools.dis(zipfile.ZipFile("out.pt").read("archive/data.pkl"), out)
text = out.getvalue()
assert "'torch Float8_e4m3fnStorage'" in text and "'torch Float8_e5m2Storage'" in text, text
assert "_rebuild_parameter'" in text
PY
