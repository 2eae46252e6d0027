# Creation order where the file tracks it (root), name order where not.
run ckpt-read --names "$FIX/order.h5"
expect_status 0
printf '%s\n' zeta alpha plain/b plain/c middle >"$T/want"
cmp -s "$T/out" "$T/want" || fail "got: $(cat "$T/out")"
