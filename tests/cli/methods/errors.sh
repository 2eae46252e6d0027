# Bad input to the merge methods: one line (and the usage line for a bad
# option), exit 2, nothing written.
need_h5py
cd "$T"
"$PY" - <<'PY' || fail "h5py"
import h5py, numpy as np
for name, shape in [("base", (4, 3)), ("a", (4, 3)), ("b", (4, 3)), ("c", (4, 3)), ("wide", (3, 4))]:
    with h5py.File(name + ".h5", "w") as f:
        f["w"] = np.ones(shape, "f4")
        f["v"] = np.zeros(5, "f4")
PY
avg() { run ckpt-average "$@"; }
avg --method ties a.h5 b.h5 -o o.h5
expect_usage_error ckpt-average "--method ties needs --base BASE"
avg --method nope --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "--method: unknown method 'nope'"
for d in 0 1.5 -0.2 nan; do
	avg --method ties --density "$d" --base base.h5 a.h5 b.h5 -o o.h5
	expect_usage_error ckpt-average "--density"
done
avg --method breadcrumbs --gamma 1 --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "--gamma: 1 is not in \[0, 1\)"
avg --method task-arithmetic --density 0.5 --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "--density and --gamma go with"
avg --method slerp -t 0.5 a.h5 b.h5 c.h5 -o o.h5
expect_error ckpt-average "slerp interpolates between two INPUTs, not 3"
avg --method slerp -t 0.5 --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "takes no --base"
avg --method slerp -t 0.5 -w 1,2 a.h5 b.h5 -o o.h5
expect_usage_error ckpt-average "takes no -w"
avg --method ties -t 0.5 --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "-t goes with --method slerp"
avg --method model-stock --base base.h5 a.h5 -o o.h5
expect_error ckpt-average "model-stock needs at least two models"
avg --method ties --partial --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "--partial goes with the mean"
avg --method ties --dtype i32 --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "a merge method stores floats"
avg --lambda 2 a.h5 b.h5 -o o.h5
expect_usage_error ckpt-average "go with --method"
avg --method ties --sign most --base base.h5 a.h5 -o o.h5
expect_usage_error ckpt-average "--sign: 'most' is neither sum nor count"
avg --method ties --base base.h5 a.h5 wide.h5 -o o.h5
expect_error ckpt-average "wide.h5: variable 'w' has shape \[3,4\], base.h5 has \[4,3\]"
avg --method ties --base wide.h5 a.h5 -o o.h5
expect_error ckpt-average "a.h5: variable 'w' has shape \[4,3\], wide.h5 has \[3,4\]"
avg --method ties --base missing.h5 a.h5 -o o.h5
expect_error ckpt-average "missing.h5"
avg --method ties --base base.h5 -w 1,2,3 a.h5 b.h5 -o o.h5
expect_usage_error ckpt-average "-w: 3 weights for 2 inputs"
expect_no_file o.h5
