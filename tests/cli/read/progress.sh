# --progress shows progress on stderr even when it is no terminal, and
# leaves stdout as it was; -q silences it; by default a pipe gets none.
cd "$T"
"$BIN/../tests/mkbench" 2 big.h5 0.1 || fail mkbench
ckpt-read --stats big.h5 >plain.out 2>plain.err || fail "plain"
[ ! -s plain.err ] || fail "progress without a terminal: $(cat plain.err)"
ckpt-read --stats --progress big.h5 >prog.out 2>prog.err || fail "--progress"
cmp -s plain.out prog.out || fail "--progress changed stdout"
tr '\r' '\n' <prog.err | grep -q '^ckpt-read: reading 100%' || fail "no progress: $(cat -v prog.err)"
ckpt-diff --progress big.h5 big.h5 >/dev/null 2>d.err || fail "ckpt-diff"
tr '\r' '\n' <d.err | grep -q '^ckpt-diff: comparing 100%' || fail "no ckpt-diff progress"
ckpt-average --progress -o avg.h5 big.h5 big.h5 2>a.err || fail "ckpt-average"
tr '\r' '\n' <a.err | grep -q '^ckpt-average: averaging 100%' || fail "no ckpt-average progress: $(cat -v a.err)"
ckpt-read -q --progress --stats big.h5 >/dev/null 2>q.err
[ ! -s q.err ] || fail "-q did not silence progress"
rm -f big.h5 avg.h5
