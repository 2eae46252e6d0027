# A dataset of 4 GiB + 10 int8 in a 6 KB file (tbigdims.h5: two chunks
# allocated, the rest fill values) averaged with itself is itself (the
# output holds every value: 4.4 GB).  Minutes of work over 2^32 values: run
# only with CKPT_LARGE_TESTS=1 (average/real-self leaves it out).
[ -n "${CKPT_LARGE_TESTS:-}" ] || skip "large (4 GiB of values, 4.4 GB written): set CKPT_LARGE_TESTS=1"
not_under_valgrind
need_real
command -v h5diff >/dev/null || skip "h5diff not installed"
f="$REAL/hdf5_misc/tbigdims.h5"
[ -f "$f" ] || skip "tbigdims.h5 is absent"
cd "$T"
ckpt-average -q -o x.h5 "$f" "$f" || fail "average failed"
ckpt-diff -q --bitwise "$f" x.h5 || fail "ckpt-diff finds a difference"
h5diff -q "$f" x.h5 >/dev/null 2>&1 || fail "h5diff finds a difference"
rm -f x.h5
