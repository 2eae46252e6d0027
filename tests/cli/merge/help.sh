run ckpt-merge --help
expect_status 0
expect_out '^usage: ckpt-merge '
expect_out '--strip-prefix'
expect_out '--split K'
run ckpt-merge --version
expect_out '^ckpt-merge \(ckpt\) [0-9]+\.[0-9]+'
