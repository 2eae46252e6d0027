# Data-parallel training as separate processes, with ckpt-average in
# between, is bit for bit ckpt-train --workers 4: both sync modes (25
# iterations; one under valgrind, where each of the 11 runs of an
# iteration takes about 20 seconds: the same code, 7 minutes less of CI).
slow_case
N=25
[ -z "${CKPT_VALGRIND:-}" ] || N=1
cd "$T"
ckpt-train -q --steps 0 -o avg.h5 || fail "start"
cp avg.h5 gavg.h5
it=0
while [ $it -lt $N ]; do
	for i in 0 1 2 3; do
		ckpt-train -q --init avg.h5 --data-seed $i --steps 1 -f -o w$i.h5 || fail "worker $i"
		ckpt-train -q --init gavg.h5 --data-seed $i --gradients -f -o g$i.h5 || fail "grad $i"
	done
	ckpt-average -f -o avg.h5 w0.h5 w1.h5 w2.h5 w3.h5 || fail "average"
	ckpt-average -f -o g.h5 g0.h5 g1.h5 g2.h5 g3.h5 || fail "average grads"
	ckpt-train -q --init gavg.h5 --apply g.h5 -f -o gavg.h5 || fail "apply"
	it=$((it + 1))
done
ckpt-train -q --workers 4 --iterations $N -o ref.h5
ckpt-train -q --workers 4 --iterations $N --sync grads -o gref.h5
[ "$(ckpt-read -q --values avg.h5)" = "$(ckpt-read -q --values ref.h5)" ] ||
	fail "params: $(ckpt-read -q --values avg.h5) vs $(ckpt-read -q --values ref.h5)"
[ "$(ckpt-read -q --values gavg.h5)" = "$(ckpt-read -q --values gref.h5)" ] ||
	fail "grads: $(ckpt-read -q --values gavg.h5) vs $(ckpt-read -q --values gref.h5)"
