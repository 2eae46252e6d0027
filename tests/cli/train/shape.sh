# --features/--outputs: W [M,N], b [M]; trains and continues from a file.
run ckpt-train -q --features 3 --outputs 2 --iterations 50 -o "$T/m.h5"
expect_status 0
ckpt-read "$T/m.h5" | grep -Eq '^w +float32 +\[2,3\]' || fail "$(ckpt-read "$T/m.h5")"
ckpt-read "$T/m.h5" | grep -Eq '^b +float32 +\[2\]' || fail "b shape"
run ckpt-train -q --init "$T/m.h5" --steps 1 -o "$T/n.h5"
expect_status 0
run ckpt-train -q --init "$T/m.h5" --features 4 --steps 1 -o "$T/bad.h5"
expect_error ckpt-train "'w' has shape \[2,3\], the model needs \[2,4\]"
expect_no_file "$T/bad.h5"
