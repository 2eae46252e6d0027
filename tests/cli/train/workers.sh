# Four workers, in both sync modes: converge; the modes differ.
for mode in params grads; do
	run ckpt-train -q --workers 4 --sync $mode -o "$T/$mode.h5"
	expect_status 0
	expect_quiet_stderr
	ckpt-read --tsv --values "$T/$mode.h5" | awk -F'\t' '
		$2 == "w" { w = $4 } $2 == "b" { b = $4 }
		END { exit !((w - 0.1)^2 < 1e-6 && (b - 0.3)^2 < 1e-6) }' || fail "$mode did not converge"
done
ckpt-read -q --values "$T/params.h5" >"$T/p"
ckpt-read -q --values "$T/grads.h5" >"$T/g"
! cmp -s "$T/p" "$T/g" || fail "params and grads gave the same weights"
# with several local steps, params averaging differs again
run ckpt-train -q --workers 4 --local-steps 3 --iterations 5 -o "$T/k3.h5"
expect_status 0
