# The default table: a header, a row per variable, totals.
run ckpt-read "$FIX/model.h5"
expect_status 0
expect_quiet_stderr
expect_out '^NAME +DTYPE +SHAPE +ELEMENTS +BYTES$'
expect_out '^dense/dense/kernel:0 +float32 +\[4,3\] +12 +48$'
expect_out '^optimizer/iterations:0 +int64 +\[\] +1 +8$'
expect_out '^empty +float32 +\[0,3\] +0 +0$'
expect_out '^labels +vlen-string +\[3\] '
expect_out '^records +compound +\[3\] '
expect_out '^6 variables, 16 parameters, [0-9]+ bytes$'
