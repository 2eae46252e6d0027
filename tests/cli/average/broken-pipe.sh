# Output to a pipe that closes early: the program ends quietly and leaves
# no temporary file behind.
cd "$T"
mkdir tmp
"$BIN/../tests/mkbench" 3 big.h5 0.1 || fail mkbench
TMPDIR="$T/tmp" ckpt-average -o - big.h5 big.h5 2>err | head -c 10 >/dev/null
[ ! -s err ] || fail "stderr: $(cat err)"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
rm -f big.h5 err
