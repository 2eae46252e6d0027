# --values: every dtype, a line per last-dimension row, round-trip numbers.
run ckpt-read --values --only 'float16' --only 'bool' --only 'int64' --only 'uint8' "$FIX/dtypes.h5"
expect_status 0
expect_out '^float16 float16 \[2,3\]$'
expect_out '^-1 -0.75 -0.5$'
expect_out '^false true true$'
expect_out '^-2 -1 0$'
expect_out '^120 160 200$'
run ckpt-read --values --only 'special/*' "$FIX/dtypes.h5"
expect_out '^inf -inf nan 0 -0$'
