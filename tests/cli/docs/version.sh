# --version in GNU form for every program: "prog (ckpt) VERSION", then the
# format and container libraries in use; stdout, exit 0.
for p in ckpt-average ckpt-diff ckpt-flatten ckpt-merge ckpt-read ckpt-train ckpt-unflatten; do
	run $p --version
	expect_status 0
	expect_quiet_stderr
	[ "$(sed -n 1p "$T/out")" = "$p (ckpt) $(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")" ] ||
	    fail "$p --version: first line is '$(sed -n 1p "$T/out")'"
	sed -n 2p "$T/out" | grep -Eq '^HDF5 [0-9]+\.[0-9]+\.[0-9]+, libarchive [0-9]' ||
	    fail "$p --version: second line is '$(sed -n 2p "$T/out")'"
	[ "$(wc -l <"$T/out")" -eq 2 ] || fail "$p --version: $(cat "$T/out")"
done
