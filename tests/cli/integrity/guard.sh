# The input guard of the test runner (tests/guard.sh) itself: a "program"
# that changes a file it was given, or one beside it, is reported; its
# output (-o, a %d pattern, what stdout was sent to) is not.
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
