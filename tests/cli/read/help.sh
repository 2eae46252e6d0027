# --help on stdout, exit 0; --version.
run ckpt-read --help
expect_status 0
expect_quiet_stderr
expect_out '^usage: ckpt-read '
expect_out '--stats'
run ckpt-read --version
expect_status 0
expect_out '^ckpt-read \(ckpt\) [0-9]+\.[0-9]+'
