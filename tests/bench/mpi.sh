#!/bin/sh
# tests/bench/mpi.sh SERIAL_BUILD MPI_BUILD - make bench-mpi: ckpt-average of
# the 4 x 1 GiB workload by the serial program and under mpirun with P = 1
# and 2 ranks, beside the floor (cat of the inputs + writing the output's
# size); then a merge method (CKPT_BENCH_MPI_METHOD, TIES by default; none:
# skipped) on four gzip-compressed models of a quarter the size (mkbench
# --gzip 0.5: written by the ranks together, the windows of each variable
# found by one of them) by the serial program and under 2 ranks.  The runs
# alternate and the medians of RUNS (5) are shown, with ratios: the machine
# is shared and its page cache moves.  Never part of check.
set -eu
S=${1:-build}
M=${2:-build-mpi}
W=${CKPT_BENCH_DIR:-$S/bench}
RUNS=${RUNS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0
# containers without cross-memory attach: no warning about it
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mkdir -p "$W"
for i in 0 1 2 3; do
	[ -f "$W/b$i.h5" ] || "$S/tests/mkbench" $i "$W/b$i.h5"
done
size=$(wc -c <"$W/b0.h5")

# seconds of one run of a function, outputs removed and written back first
once() {
	rm -f "$W"/*.out
	sync
	t0=$(date +%s.%N)
	"$1" >/dev/null 2>"$W/stderr" || { echo "bench: $1 failed" >&2; cat "$W/stderr" >&2; exit 1; }
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

floor() { cat "$W"/b[0-3].h5 >/dev/null && head -c "$size" /dev/zero >"$W/zero.out"; }
serial() { "$S/bin/ckpt-average" -q -o "$W/avg.out" "$W"/b[0-3].h5; }
p1() { mpirun -q -n 1 "$M/bin/ckpt-average" -q -o "$W/avg.out" "$W"/b[0-3].h5; }
p2() { mpirun -q --oversubscribe -n 2 "$M/bin/ckpt-average" -q -o "$W/avg.out" "$W"/b[0-3].h5; }

cat "$W"/b[0-3].h5 >/dev/null
for k in floor serial p1 p2; do : >"$W/$k.times"; done
for r in $(seq "$RUNS"); do
	for k in floor serial p1 p2; do
		once $k >>"$W/$k.times"
	done
done
f=$(median <"$W/floor.times")
echo "ckpt-average of 4 x $(awk -v b="$size" 'BEGIN { printf "%.0f MiB", b / 1048576 }'), median of $RUNS, $(nproc) cores"
for k in floor serial p1 p2; do
	awk -v l="$k" -v s="$(median <"$W/$k.times")" -v f="$f" \
	    'BEGIN { printf "%-8s %8.2f s %8.2fx floor\n", l, s, s / f }'
done
rm -f "$W"/*.out "$W"/*.times

METHOD=${CKPT_BENCH_MPI_METHOD:-ties --density 0.2}
[ "$METHOD" = none ] && exit 0
for i in 0 1 2 3; do
	[ -f "$W/g$i.h5" ] || "$S/tests/mkbench" $i "$W/g$i.h5" --gzip 0.5
done
# shellcheck disable=SC2086
mserial() { "$S/bin/ckpt-average" -q -o "$W/m.out" --method $METHOD --base "$W"/g[0-3].h5; }
# shellcheck disable=SC2086
mp2() {
	mpirun -q --oversubscribe -n 2 "$M/bin/ckpt-average" -q -o "$W/m.out" --method $METHOD \
		--base "$W"/g[0-3].h5
}
cat "$W"/g[0-3].h5 >/dev/null
for k in mserial mp2; do : >"$W/$k.times"; done
for r in $(seq "$RUNS"); do
	for k in mserial mp2; do
		once $k >>"$W/$k.times"
	done
done
s=$(median <"$W/mserial.times")
echo "--method $METHOD on 4 x $(awk -v b="$(wc -c <"$W/g0.h5")" 'BEGIN { printf "%.0f MiB", b / 1048576 }') gzip, median of $RUNS"
for k in mserial mp2; do
	awk -v l="$k" -v t="$(median <"$W/$k.times")" -v s="$s" \
	    'BEGIN { printf "%-8s %8.2f s %8.2fx serial\n", l, t, t / s }'
done
rm -f "$W"/*.out "$W"/*.times
