# One name mapping for every program: a mapping that folds two variables
# onto one name is refused, naming both, by ckpt-read and ckpt-diff too
# (ckpt-read listed 'w' twice; ckpt-diff said only "the same name").
need_h5py
"$PY" -c '
import h5py, numpy as np
with h5py.File("wx.h5", "w") as f:
    f["w"] = np.ones(2, "f4"); f["x/w"] = np.zeros(2, "f4")' || fail "cannot make the input"

run ckpt-read --strip-prefix x/ wx.h5
expect_error ckpt-read "wx.h5: variables 'w' and 'x/w' would both be called 'w': check --strip-prefix"
[ ! -s "$T/out" ] || fail "ckpt-read printed a listing: $(cat "$T/out")"
run ckpt-diff --strip-prefix x/ wx.h5 wx.h5
expect_error ckpt-diff "wx.h5: variables 'w' and 'x/w' would both be called 'w'"
run ckpt-read --add-prefix x/ wx.h5
expect_status 0
expect_out '^x/x/w'
