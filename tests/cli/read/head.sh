# --head N: at most N values per variable, then "...".
run ckpt-read --head 4 --only 'dense/dense/kernel:0' "$FIX/model.h5"
expect_status 0
expect_out '^-3 -2.5 -2$'
expect_out '^-1.5 $|^-1.5$'
expect_out '^\.\.\.$'
expect_no_out '^0 0.5 1$'
run ckpt-read --head 0 --only 'dense/*' "$FIX/model.h5"
expect_status 0
expect_no_out '^-3'
