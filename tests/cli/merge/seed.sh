# The seed scenario: a worker's checkpoint, its variables under a random
# scope prefix, merged into an unprefixed one with --strip-prefix; without
# it nothing matches, and the message says what to strip.
cd "$T"
ckpt-train -q --steps 0 -o base.h5
ckpt-train -q --steps 7 --random-prefix -o worker.h5
p=$(ckpt-read --names worker.h5 | head -n 1 | cut -d/ -f1)
run ckpt-merge -o out.h5 base.h5 worker.h5
expect_error ckpt-merge "no variable of worker.h5 matches one of base.h5 \(worker.h5 has '$p/w', '$p/b'; base.h5 has 'w', 'b'\); try --strip-prefix '$p/'"
expect_no_file out.h5
run ckpt-merge --strip-prefix "$p/" -o out.h5 base.h5 worker.h5
expect_status 0
grep -q "out.h5: 2 variables replaced, 0 kept; 0 ignored, 0 added" err || fail "summary: $(cat err)"
ckpt-diff -q --bitwise --strip-prefix "$p/" out.h5 worker.h5 || fail "values not taken"
[ "$(ckpt-read --names out.h5 | tr '\n' ' ')" = "w b " ] || fail "names changed"
# the result is what training from the same start gives, unprefixed
ckpt-train -q --steps 7 -o plain.h5
ckpt-diff -q --bitwise out.h5 plain.h5 || fail "differs from unprefixed training"
# -q: no summary
run ckpt-merge -q -f --strip-prefix "$p/" -o out.h5 base.h5 worker.h5
expect_status 0
expect_quiet_stderr
# the other way round: --add-prefix, and its hint
run ckpt-merge -o back.h5 worker.h5 plain.h5
expect_error ckpt-merge "try --add-prefix '$p/'"
run ckpt-merge -q --add-prefix "$p/" -o back.h5 worker.h5 plain.h5
expect_status 0
ckpt-diff -q --bitwise worker.h5 back.h5 || fail "--add-prefix"
