[ "$(id -u)" -ne 0 ] || skip "running as root: permissions do not apply"
cp "$FIX/model.h5" "$T/locked.h5" && chmod 000 "$T/locked.h5"
run ckpt-read "$T/locked.h5"
expect_error ckpt-read "locked.h5: Permission denied"
