# Every program's man page (and ckpt(7)) has an ENVIRONMENT section naming
# the variables the programs read; those writing checkpoints name TMPDIR.
for m in "$TOP"/man/man1/*.1 "$TOP"/man/man7/ckpt.7; do
	sec=$(sed -n '/^\.Sh ENVIRONMENT/,/^\.Sh /p' "$m")
	[ -n "$sec" ] || fail "${m##*/}: no ENVIRONMENT section"
	for v in CKPT_DEBUG HDF5_PLUGIN_PATH HDF5_USE_FILE_LOCKING; do
		echo "$sec" | grep -q "^\.It Ev $v" || fail "${m##*/}: ENVIRONMENT lacks $v"
	done
done
for p in average merge train unflatten; do
	sed -n '/^\.Sh ENVIRONMENT/,/^\.Sh /p' "$TOP/man/man1/ckpt-$p.1" | grep -q '^\.It Ev TMPDIR' ||
	    fail "ckpt-$p.1: ENVIRONMENT lacks TMPDIR"
done
