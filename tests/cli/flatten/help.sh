run ckpt-flatten --help
expect_status 0
expect_out '^usage: ckpt-flatten '
expect_out '--bundle'
run ckpt-flatten --version
expect_out '^ckpt-flatten \(ckpt\) [0-9]+\.[0-9]+'
run ckpt-unflatten --help
expect_status 0
expect_out '^usage: ckpt-unflatten '
expect_out '--template'
