# The installed headers are plain C11: each compiles alone with
# -std=c11 -pedantic-errors and nothing but the installed directory on the
# include path (no <hdf5.h>, no compiler extensions).
command -v cc >/dev/null || skip "no C compiler"
hdrs=$(make -s -C "$TOP" list-headers) || fail "make list-headers failed"
[ -n "$hdrs" ] || fail "no public headers listed"
mkdir -p "$T/inc/ckpt"
for h in $hdrs; do cp "$TOP/$h" "$T/inc/ckpt/" || fail "cannot copy $h"; done
for h in $hdrs; do
	name=${h##*/}
	printf '#include <ckpt/%s>\nint ckpt_header_test(void);\nint ckpt_header_test(void) { return 0; }\n' \
	    "$name" >"$T/t.c"
	cc -std=c11 -pedantic-errors -Wall -Wextra -Werror -c -o "$T/t.o" -I"$T/inc" "$T/t.c" \
	    >"$T/cc.log" 2>&1 || fail "$name does not compile alone: $(head -5 "$T/cc.log")"
done
[ -e "$T/inc/ckpt/ckpt.h" ] || fail "ckpt.h is not installed"
for private in h5.h refs.h temp.h vec.h i128.h; do
	[ ! -e "$T/inc/ckpt/$private" ] || fail "internal header $private would be installed"
done
