run ckpt-train --help
expect_status 0
expect_out '^usage: ckpt-train '
expect_out '--sync params\|grads'
run ckpt-train --version
expect_out '^ckpt-train \(ckpt\) [0-9]+\.[0-9]+'
