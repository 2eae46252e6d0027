# A dataset with two hard links is one variable with two names: ckpt-read
# lists the variable under its first name and the other as "NAME -> FIRST"
# (JSON: other_names); every output keeps both links, to one dataset; a
# cycle of groups is copied as a link, not followed.
need_h5py
"$PY" - <<'PY' || fail "cannot make the input"
import h5py, numpy as np
with h5py.File("hl.h5", "w") as f:
    f["w"] = np.arange(4, dtype="f4")
    f.create_group("g")["alias"] = f["w"]
    a = f.create_group("a")
    a.create_group("b")["up"] = a
PY
run ckpt-read hl.h5
expect_status 0
expect_out '^g/alias +float32'
expect_out '^w -> g/alias$'
[ "$(grep -c float32 "$T/out")" -eq 1 ] || fail "listed twice: $(cat "$T/out")"
run ckpt-read --json hl.h5
expect_out '"other_names": \["w"\]'
run ckpt-read --names hl.h5
[ "$(cat "$T/out")" = "g/alias" ] || fail "--names: $(cat "$T/out")"
run ckpt-average -o avg.h5 hl.h5 hl.h5
expect_status 0
run ckpt-merge -o m.h5 hl.h5 hl.h5
expect_status 0
run ckpt-merge --split 2 -o 's%d.h5' hl.h5
expect_status 0
run ckpt-merge --join -o j.h5 s0.h5 s1.h5
expect_status 0
ckpt-flatten hl.h5 | ckpt-unflatten --template hl.h5 -o u.h5 || fail "unflatten"
"$PY" - <<'PY' || fail "links lost"
import h5py
for n in ("avg.h5", "m.h5", "j.h5", "u.h5"):
    with h5py.File(n) as f:
        assert h5py.h5o.get_info(f["w"].id).addr == h5py.h5o.get_info(f["g/alias"].id).addr, n
        assert h5py.h5o.get_info(f["a/b/up"].id).addr == h5py.h5o.get_info(f["a"].id).addr, n
PY
