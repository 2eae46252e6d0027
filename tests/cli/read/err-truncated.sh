# Truncated at several points: one line, exit 2, never a crash.
size=$(wc -c <"$FIX/model.h5")
for n in 8 100 800 2048 $((size / 2)) $((size - 1)); do
	head -c "$n" "$FIX/model.h5" >"$T/cut.h5"
	run ckpt-read --stats "$T/cut.h5"
	expect_error ckpt-read "cut.h5: "
	head -c "$n" "$FIX/model.h5" | ckpt-read - >"$T/out" 2>"$T/err"
	rc=$?
	expect_error ckpt-read "stdin"
done
