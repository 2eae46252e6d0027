# Archives: every HDF5 member is an input, in archive order; a .keras file.
cd "$T"
for i in 0 1 2 3; do ckpt-train -q --steps 1 --data-seed $i -o w$i.h5; done
ckpt-average -o plain.h5 w0.h5 w1.h5 w2.h5 w3.h5
printf '{}' > config.json
for z in "" z J; do
	case $z in z) command -v gzip >/dev/null || continue ;;
	           J) command -v xz >/dev/null || continue ;; esac
	tar c${z}f ws.tar w0.h5 config.json w1.h5 w2.h5 w3.h5 || fail "tar $z"
	run ckpt-average -f -o t.h5 ws.tar
	expect_status 0
	[ "$(ckpt-read -q --values t.h5)" = "$(ckpt-read -q --values plain.h5)" ] || fail "tar $z differs"
done
if command -v zstd >/dev/null; then
	tar cf - w0.h5 w1.h5 w2.h5 w3.h5 | zstd -q >ws.tar.zst
	ckpt-average -f -o z.h5 ws.tar.zst || fail "tar.zst"
fi
run ckpt-average -o two.h5 w0.h5 - <ws.tar
expect_status 0
need_real
k="$REAL/keras3/keras3_mlx_lstm_model.keras"
run ckpt-average -o k.h5 "$k" "$k"
expect_status 0
run ckpt-read --names k.h5
expect_out '^layers/lstm/cell/vars/0$'
