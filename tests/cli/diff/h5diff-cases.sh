# h5diff's own test cases that compare what ckpt-diff compares (numeric and
# other datasets of two files, whole or under one path, exactly or with
# -d = --atol) reach h5diff's verdict -- except where it rightly differs:
# ckpt-diff compares variables, not attributes or links, and counts a shape
# difference even when both shapes hold no element.
# (Not under valgrind: a hundred comparisons of the paths diff/tolerances,
# diff/report and diff/interop-numpy take there, over a minute.)
not_under_valgrind
need_real
cases=$(sh "$TOP/tests/interop/h5diff_cases.sh" "$BIN/ckpt-diff" "$REAL/h5diff") ||
	fail "runner failed"
[ "$(printf '%s\n' "$cases" | grep -c '^same')" -ge 20 ] || fail "too few cases ran: $cases"
printf '%s\n' "$cases" | grep '^DIFFERENT' | while read -r v want got args; do
	case $args in
	*h5diff_attr1.h5*|*h5diff_attr_v_level1.h5*) ;;  # attributes only
	*h5diff_danglelinks1.h5*) ;;                     # dangling soft links
	*h5diff_dset_zero_dim_size1.h5*) ;;              # [0,0] against [0,4]
	*) echo "h5diff says $want, ckpt-diff $got: $args"; exit 1 ;;
	esac
done || fail "verdicts differ"
