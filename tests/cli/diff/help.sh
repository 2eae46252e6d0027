run ckpt-diff --help
expect_status 0
expect_out '^usage: ckpt-diff '
run ckpt-diff --version
expect_out '^ckpt-diff \(ckpt\) [0-9]+\.[0-9]+'
