# float16 and bfloat16 stay 16-bit; --dtype stores another type.
cd "$T"
ckpt-average -o d.h5 "$FIX/dtypes.h5" "$FIX/dtypes.h5" || fail "average"
run ckpt-read d.h5
expect_out '^float16 +float16 '
expect_out '^bfloat16 +bfloat16 '
run ckpt-read -q --values --only float16 --only special/bf16 d.h5
expect_out '^-1 -0.75 -0.5$'
expect_out '^inf -inf nan 0 -0$'
run ckpt-average --dtype f32 --only 'float16' -o e.h5 "$FIX/dtypes.h5" "$FIX/dtypes.h5"
expect_status 0
run ckpt-read e.h5
expect_out '^float16 +float32 '
expect_out '^bfloat16 +bfloat16 '
run ckpt-average --dtype f17 -o x.h5 "$FIX/dtypes.h5"
expect_usage_error ckpt-average "--dtype: unknown dtype 'f17'"
