# Every bad option value is misuse, reported one way in every program: the
# message naming the option, then the usage line; exit 2, nothing written.
# (--dtype q8 was one line in ckpt-average, two in ckpt-flatten; --sync foo
# one line, --by foo two.)
"$BIN/ckpt-train" --iterations 2 -o good.h5 >/dev/null 2>&1 || fail "cannot make the input"
while IFS='|' read -r args regex; do
	case $args in ''|'#'*) continue ;; esac
	prog=${args%% *}
	eval "set -- ${args#* }"
	run "$prog" "$@"
	expect_usage_error "$prog" "$regex"
	expect_no_file new.h5 new.bin s0.h5 s1.h5
done <<'CASES'
ckpt-average --dtype q8 -o new.h5 good.h5|--dtype: unknown dtype 'q8'
ckpt-flatten --dtype q8 -o new.bin good.h5|--dtype: unknown dtype 'q8'
ckpt-unflatten --dtype q8 --template good.h5 -o new.h5 good.h5|--dtype: unknown dtype 'q8'
ckpt-average -w 1,x -o new.h5 good.h5 good.h5|-w: 'x' is not a finite number
ckpt-average -w 1 -o new.h5 good.h5 good.h5|-w: 1 weight for 2 inputs
ckpt-average -w 1,-1 -o new.h5 good.h5 good.h5|-w: the weights sum to 0
ckpt-train --sync foo -o new.h5|--sync: 'foo' is neither 'params' nor 'grads'
ckpt-train --workers 0 -o new.h5|--workers: 0 is out of range
ckpt-train --lr inf -o new.h5|--lr: 'inf' is not a finite number
ckpt-train --prefix /abs -o new.h5|--prefix: '/abs' is not a usable name
ckpt-merge --by foo --split 2 -o s%d.h5 good.h5|--by: 'foo' is not round-robin or size
ckpt-merge --split 0 -o s%d.h5 good.h5|--split: 0 is out of range
ckpt-read --head x good.h5|--head: 'x' is not a whole number
ckpt-diff --atol -1 good.h5 good.h5|--atol: -1 is negative
ckpt-diff --rtol nan good.h5 good.h5|--rtol: 'nan' is not a finite number
ckpt-diff --ulps -3 good.h5 good.h5|--ulps: '-3' is not a whole number
ckpt-flatten --compress rar --bundle -o new.bin good.h5|unknown compression 'rar'
CASES
