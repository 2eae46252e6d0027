#!/bin/sh
# tests/bench/methods.sh BUILD_DIR WORK_DIR - ckpt-average's merge methods
# on four 1 GiB float32 checkpoints (the first the base; SLERP: two), each
# beside the linear average of the models in the same run (medians of
# CKPT_BENCH_RUNS alternating runs, 5), with its goal (one pass 1.3x, two
# passes 2.3x); "all in" also against the linear average of every file
# the method reads (the base too: as many bytes in); its CPU time (user +
# system, a median: steadier than the wall's on a shared machine, for
# comparing builds); its peak memory, and
# an h5py + numpy script doing the same
# method (tensors whole in float64; one run, skipped without h5py or with
# CKPT_BENCH_SCRIPTS=0).  CKPT_BENCH_MODELS=finetune: the models are
# fine-tunes of the base instead, b0 + b_i / 100 (made by ckpt-average
# --no-normalize), whose task vectors are small beside the weights, as in
# real merges; the default, independent: b1..b3 themselves.
# CKPT_BENCH_DTYPE=bf16 (or f16): the same checkpoints stored in that type
# (made once by ckpt-average --dtype, in WORK_DIR/TYPE), half the bytes;
# no numpy script for bfloat16, which numpy has no type for.
# CKPT_BENCH_WEIGHTS=W1,W2,W3: the models weighted so (-w; not SLERP and
# model stock, which take none), as the linear average they are beside
# ("all in": the plain average of the four files, the same bytes); 0.3,
# 0.3, 0.4 are no multiples of a power of two that fits, the case where no
# element is exact as the weights are (no numpy script: it weighs none).
set -eu
B=$1 W=$2
N=${CKPT_BENCH_RUNS:-5}
ROWS=${CKPT_BENCH_ROWS:-*}
PY=
[ "${CKPT_BENCH_SCRIPTS:-1}" = 0 ] ||
for p in python3 /usr/bin/python3; do
	"$p" -c 'import h5py, numpy' 2>/dev/null && PY=$p && break
done
for i in 0 1 2 3; do
	[ -f "$W/b$i.h5" ] || "$B/tests/mkbench" $i "$W/b$i.h5"
done
DT=${CKPT_BENCH_DTYPE:-f32}
if [ "$DT" != f32 ]; then
	mkdir -p "$W/$DT"
	for i in 0 1 2 3; do
		[ -f "$W/$DT/b$i.h5" ] ||
			"$B/bin/ckpt-average" -q --dtype "$DT" -o "$W/$DT/b$i.h5" "$W/b$i.h5"
	done
	W=$W/$DT
	[ "$DT" = bf16 ] && PY=
fi
M1=$W/b1.h5 M2=$W/b2.h5 M3=$W/b3.h5
WT=${CKPT_BENCH_WEIGHTS:-}
[ -z "$WT" ] || PY=
if [ "${CKPT_BENCH_MODELS:-independent}" = finetune ]; then
	for i in 1 2 3; do
		[ -f "$W/f$i.h5" ] || "$B/bin/ckpt-average" -q --no-normalize -w 1,0.01 \
			-o "$W/f$i.h5" "$W/b0.h5" "$W/b$i.h5"
	done
	M1=$W/f1.h5 M2=$W/f2.h5 M3=$W/f3.h5
fi
cat "$W"/b0.h5 "$M1" "$M2" "$M3" >/dev/null

run1() { # wall seconds of one run; peak RSS (KiB) appended to $W/rss, CPU
	# seconds to $W/cpu
	rm -f "$W"/m.out.h5
	sync
	/usr/bin/time -f '%e %M %U %S' -o "$W/time" "$@" >/dev/null 2>"$W/stderr" ||
		{ echo "bench: failed: $*"; cat "$W/stderr"; exit 1; }
	cut -d' ' -f2 "$W/time" >>"$W/rss"
	awk '{ print $3 + $4 }' "$W/time" >>"$W/cpu"
	cut -d' ' -f1 "$W/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-18s %8s %8s %7s %5s %8s %9s %9s %9s %8s\n' "method" "linear" "ckpt" "ratio" "goal" \
	"all in" "ckpt cpu" "ckpt RSS" "numpy" "ckpt is"
for c in "task-arithmetic:1.3" "dare-linear --density 0.5:1.3" "dare-ties --density 0.5:1.3" \
         "ties --density 0.2:2.3" "breadcrumbs --density 0.5:2.3" "model-stock:2.3" \
         "slerp -t 0.5:2.3"; do
	args=${c%%:*} goal=${c#*:} name=${args%% *}
	# shellcheck disable=SC2254
	case "$name" in $ROWS) ;; *) continue ;; esac
	case $name in
	slerp) set -- "$M1" "$M2"; lin="$M1 $M2" all=$lin ;;
	*) set -- --base "$W/b0.h5" "$M1" "$M2" "$M3"; lin="$M1 $M2 $M3" all="$W/b0.h5 $lin" ;;
	esac
	case $name:$WT in
	slerp:?* | model-stock:?*) continue ;;
	*:?*) args="$args -w $WT" lin="-w $WT $lin" ;;
	esac
	: >"$W/lin.t"; : >"$W/all.t"; : >"$W/m.t"
	for r in $(seq "$N"); do
		: >"$W/rss"
		# shellcheck disable=SC2086
		run1 "$B/bin/ckpt-average" -o "$W/m.out.h5" $lin >>"$W/lin.t"
		if [ "$all" = "$lin" ]; then tail -n 1 "$W/lin.t" >>"$W/all.t"; else
			# shellcheck disable=SC2086
			run1 "$B/bin/ckpt-average" -o "$W/m.out.h5" $all >>"$W/all.t"
		fi
		: >"$W/rss"
		: >"$W/cpu"
		# shellcheck disable=SC2086
		run1 "$B/bin/ckpt-average" --method $args -o "$W/m.out.h5" "$@" >>"$W/m.t"
		cat "$W/rss" >>"$W/m.rss"
		cat "$W/cpu" >>"$W/m.cpu"
	done
	l=$(median <"$W/lin.t") a=$(median <"$W/all.t") m=$(median <"$W/m.t")
	mem=$(median <"$W/m.rss") cpu=$(median <"$W/m.cpu")
	np=-
	if [ -n "$PY" ]; then
		d=$(echo "$args" | sed -n 's/.*--density \([0-9.]*\).*/\1/p')
		[ "$name" = slerp ] && set -- "$M1" "$M2" || set -- "$W/b0.h5" "$M1" "$M2" "$M3"
		: >"$W/rss"
		np=$(run1 "$PY" tests/bench/methods.py "$name" "${d:-1}" "$W/m.out.h5" "$@")
	fi
	awk -v n="$name" -v l="$l" -v a="$a" -v m="$m" -v g="$goal" -v mem="$mem" -v np="$np" \
	    -v cpu="$cpu" 'BEGIN {
		printf "%-18s %7.2fs %7.2fs %6.2fx %4.1fx %7.2fx %8.2fs %6.0f MiB %9s", n, l, m, m / l, g,
		       m / a, cpu, mem / 1024, np (np != "-" ? "s" : "")
		if (np != "-") printf " %6.1fx faster", np / m
		printf "%s\n", (m / l > g ? "  (over)" : "") }'
	rm -f "$W/m.rss" "$W/m.cpu"
done
rm -f "$W"/m.out.h5 "$W/lin.t" "$W/all.t" "$W/m.t" "$W/time" "$W/stderr" "$W/rss" "$W/cpu"
