# --atol, --rtol and --ulps turn small differences into equality.
cd "$T"
ckpt-train -q --steps 20 -o a.h5
ckpt-train -q --steps 21 -o b.h5
run ckpt-diff a.h5 b.h5
expect_status 1
run ckpt-diff --atol 0.01 a.h5 b.h5
expect_status 0
run ckpt-diff --atol 1e-6 a.h5 b.h5
expect_status 1
run ckpt-diff --rtol 0.1 a.h5 b.h5
expect_status 0
run ckpt-diff --ulps 10000000 a.h5 b.h5
expect_status 0
run ckpt-diff --ulps 1 a.h5 b.h5
expect_status 1
