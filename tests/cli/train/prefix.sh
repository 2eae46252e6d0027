# --prefix and --random-prefix name variables P/w, P/b (in that order: new
# files list variables in the order they were made); --init finds the
# model with or without a prefix.
run ckpt-train -q --steps 3 --prefix tower_1 -o "$T/p.h5"
expect_status 0
[ "$(ckpt-read --names "$T/p.h5" | tr '\n' ' ')" = "tower_1/w tower_1/b " ] || fail "names"
run ckpt-train -q --steps 3 --random-prefix -o "$T/r.h5"
ckpt-read --names "$T/r.h5" | grep -Eq '^[0-9a-f]{8}/w$' || fail "random: $(ckpt-read --names "$T/r.h5")"
ckpt-train -q --steps 3 --random-prefix -o "$T/r2.h5"
[ "$(ckpt-read --names "$T/r.h5")" != "$(ckpt-read --names "$T/r2.h5")" ] || fail "prefix not random"
# continue from the prefixed file: the prefix is kept, results equal an unprefixed run
ckpt-train -q --init "$T/p.h5" --steps 2 -o "$T/p5.h5" || fail "init with prefix"
ckpt-read --names "$T/p5.h5" | grep -qx 'tower_1/w' || fail "prefix not kept"
ckpt-train -q --steps 5 -o "$T/plain.h5"
[ "$(ckpt-read -q --values --strip-prefix tower_1/ "$T/p5.h5")" = "$(ckpt-read -q --values "$T/plain.h5")" ] || fail "values differ"
