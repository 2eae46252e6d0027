# bash: --only completes the variable names of the file on the command line,
# and every program with a man page has a completion entry in all 3 shells.
command -v bash >/dev/null || skip "bash not installed"
cp "$FIX/model.h5" "$T/m.h5"
cd "$T" && bash -c '
	_init_completion() { :; }
	. "$TOP/completions/ckpt.bash"
	COMP_WORDS=(ckpt-read m.h5 --only "")
	_ckpt_varnames' >"$T/out" 2>"$T/err" || fail "bash: $(cat "$T/err")"
expect_out '^dense/dense/kernel:0$'
expect_out '^optimizer/iterations:0$'
for m in "$TOP"/man/man1/*.1; do
	p=$(basename "$m" .1)
	grep -q "complete -F _ckpt.* $p" "$TOP/completions/ckpt.bash" || \
	grep -q "complete -F _ckpt $p" "$TOP/completions/ckpt.bash" || fail "$p: no bash entry"
	grep -q "^#compdef.* $p" "$TOP/completions/_ckpt" || \
	grep -q "^#compdef $p" "$TOP/completions/_ckpt" || fail "$p: no zsh entry"
	grep -q "complete -c $p " "$TOP/completions/ckpt.fish" || fail "$p: no fish entry"
done
