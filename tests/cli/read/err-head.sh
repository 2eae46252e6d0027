# A bad --head value: one line, exit 2.
for v in abc -1 1.5 '' 99999999999999999999999; do
	run ckpt-read --head "$v" "$FIX/model.h5"
	expect_usage_error ckpt-read "--head"
done
