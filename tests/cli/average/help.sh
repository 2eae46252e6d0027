run ckpt-average --help
expect_status 0
expect_out '^usage: ckpt-average '
expect_out '--no-normalize'
run ckpt-average --version
expect_out '^ckpt-average \(ckpt\) [0-9]+\.[0-9]+'
