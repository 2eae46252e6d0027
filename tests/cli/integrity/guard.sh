# The input guard of the test runner (tests/guard.sh) itself: a "program"
# that changes a file it was given, or one beside it, is reported; its
# output (-o, a %d pattern, what stdout was sent to) is not, nor the
# case's scratch text a pipeline writes beside it (names without a dot),
# nor another program's temporary output (.NAME.XXXXXX).
printf 'x' >in.bin
printf 'y' >beside.bin
cat >prog <<'P'
#!/bin/sh
printf changed >"$1"
P
chmod +x prog
log=$T/guard.log
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog in.bin
grep -q 'in.bin: FAILED' "$log" || fail "a changed argument went unnoticed"
rm -f "$log"
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog beside.bin -o other
grep -q 'beside.bin: FAILED' "$log" || fail "a changed file beside went unnoticed"
rm -f "$log"
printf 'x' >out.bin
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog out.bin -o out.bin
printf 'x' >s1.bin
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog s1.bin -o 's%d.bin'
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog red.bin >red.bin
[ ! -s "$log" ] || fail "outputs reported as inputs: $(cat "$log")"
# a file not named but beside (a shard of a set) is checked; scratch text
# is, where it is named
printf 'x' >shard_1.h5
printf 'x' >got
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog got
grep -q 'got: FAILED' "$log" || fail "a changed named file went unnoticed"
rm -f "$log"
cat >prog3 <<'P'
#!/bin/sh
printf changed >shard_1.h5
P
chmod +x prog3
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog3 in.bin
grep -q 'shard_1.h5: FAILED' "$log" || fail "a changed file beside went unnoticed"
rm -f "$log"
# scratch a pipeline's last stage may write while the check runs
printf 'old' >types
cat >prog4 <<'P'
#!/bin/sh
echo new >types
P
chmod +x prog4
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog4 in.bin
# another program's temporary beside, renamed to its output meanwhile
printf 'x' >.u.h5.Ab3xYz
cat >prog5 <<'P'
#!/bin/sh
mv .u.h5.Ab3xYz u.h5
P
chmod +x prog5
CKPT_GUARD_LOG=$log sh "$TOP/tests/guard.sh" ./prog5 in.bin
[ ! -s "$log" ] || fail "scratch or a temporary reported as an input: $(cat "$log")"
