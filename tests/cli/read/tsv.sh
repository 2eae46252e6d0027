# --tsv listing and --tsv --values.
run ckpt-read --tsv "$FIX/model.h5"
expect_status 0
expect_out '^file	name	dtype	shape	elements	bytes$'
expect_out "	dense/dense/bias:0	float32	\[3\]	3	12$"
run ckpt-read --tsv --values --only 'dense/dense/bias:0' "$FIX/model.h5"
expect_out '^file	name	index	value$'
expect_out '	dense/dense/bias:0	2	2.5$'
