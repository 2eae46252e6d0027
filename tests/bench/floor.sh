#!/bin/sh
# tests/bench/floor.sh BUILD_DIR WORK_DIR - the average of four 1 GiB
# checkpoints beside the floor, for HDF5, safetensors, TensorFlow bundles
# and PyTorch files, float32 and bfloat16 (the same values: the bfloat16
# files hold twice the elements); for PyTorch files also beside what users
# run today, a torch.load + sum + torch.save script (time and peak memory;
# skipped without python3-torch).
# The floor is what any program must do: cat the inputs and write the
# output's size.  ckpt-average and the floor alternate, CKPT_BENCH_RUNS (5)
# times each, with a warm page cache and the output removed and written
# back to the disk before each run; the medians' ratio is the figure, beside
# its goal (1.2x).
set -eu
B=$1 W=$2
N=${CKPT_BENCH_RUNS:-5}
ROWS=${CKPT_BENCH_ROWS:-*}   # a glob of the rows to run ("PyTorch*")
GOAL=1.2

# inputs: 1 GiB float32 (mkbench, 152 variables) and 1 GiB bfloat16 (made
# from 2 GiB of float32), each in HDF5, in safetensors and as a bundle
for i in 0 1 2 3; do
	[ -f "$W/b$i.h5" ] || "$B/tests/mkbench" $i "$W/b$i.h5"
	[ -f "$W/b$i.safetensors" ] || "$B/bin/ckpt-average" -q -o "$W/b$i.safetensors" "$W/b$i.h5"
	if [ ! -f "$W/g$i.h5" ]; then
		"$B/tests/mkbench" $i "$W/g32.tmp" 1.4142
		"$B/bin/ckpt-average" -q --dtype bf16 -o "$W/g$i.h5" "$W/g32.tmp"
		rm -f "$W/g32.tmp"
	fi
	[ -f "$W/g$i.safetensors" ] || "$B/bin/ckpt-average" -q -o "$W/g$i.safetensors" "$W/g$i.h5"
	[ -f "$W/b$i.index" ] || "$B/bin/ckpt-average" -q -o "$W/b$i.index" "$W/b$i.h5"
	[ -f "$W/g$i.index" ] || "$B/bin/ckpt-average" -q -o "$W/g$i.index" "$W/g$i.h5"
	[ -f "$W/b$i.bin" ] || "$B/bin/ckpt-average" -q -o "$W/b$i.bin" "$W/b$i.h5"
	[ -f "$W/g$i.bin" ] || "$B/bin/ckpt-average" -q -o "$W/g$i.bin" "$W/g$i.h5"
done

seconds() { # one run of a command: its wall time (and peak RSS in KiB into $W/rss)
	rm -f "$W"/avg.out.* "$W/zero.out"
	sync
	/usr/bin/time -f '%e %M' -o "$W/time" "$@" >/dev/null 2>"$W/stderr" ||
		{ echo "bench: failed: $*"; cat "$W/stderr"; exit 1; }
	cut -d' ' -f2 "$W/time" >>"$W/rss"
	cut -d' ' -f1 "$W/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-34s %9s %9s %7s %5s\n' "average of 4 x 1 GiB" "floor" "ckpt" "ratio" "goal"
for c in "HDF5 float32:b:h5" "HDF5 bfloat16:g:h5" "safetensors float32:b:safetensors" \
         "safetensors bfloat16:g:safetensors" "TensorFlow bundle float32:b:index" \
         "TensorFlow bundle bfloat16:g:index" "PyTorch float32:b:bin" \
         "PyTorch bfloat16:g:bin"; do
	label=${c%%:*} rest=${c#*:}
	stem=${rest%%:*} ext=${rest#*:}
	# shellcheck disable=SC2254
	case "$label" in $ROWS) ;; *) continue ;; esac
	set -- "$W/${stem}0.$ext" "$W/${stem}1.$ext" "$W/${stem}2.$ext" "$W/${stem}3.$ext"
	files="$*" size=$(wc -c <"$1")
	if [ "$ext" = index ]; then # a bundle: its data files too (the index is KiB)
		files="$files $(echo "$W/${stem}"[0-3].data-*)"
		size=$((size + $(wc -c <"$W/${stem}0.data-00000-of-00001")))
	fi
	# shellcheck disable=SC2086
	cat $files >/dev/null
	: >"$W/floor.t"
	: >"$W/ckpt.t"
	for r in $(seq "$N"); do
		seconds sh -c "cat $files >/dev/null && head -c $size /dev/zero >'$W/zero.out'" >>"$W/floor.t"
		seconds "$B/bin/ckpt-average" -o "$W/avg.out.$ext" "$@" >>"$W/ckpt.t"
	done
	f=$(median <"$W/floor.t") a=$(median <"$W/ckpt.t")
	awk -v l="$label" -v f="$f" -v a="$a" -v g="$GOAL" 'BEGIN {
		printf "%-34s %8.2fs %8.2fs %6.2fx %4.1fx%s\n", l, f, a, a / f, g,
		       (a / f > g ? "  (over)" : "") }'
done

# PyTorch files: ckpt-average beside the script users run (every model in
# memory, summed in float32, saved with torch.save)
TORCH_AVG='import sys, torch
ins, out = sys.argv[1:-1], sys.argv[-1]
sds = [torch.load(f) for f in ins]
torch.save({k: (sum(sd[k].float() for sd in sds) / len(sds)).to(sds[0][k].dtype)
            for k in sds[0]}, out)'
# shellcheck disable=SC2254
case "PyTorch script" in $ROWS) script=1 ;; *) script= ;; esac
if [ -n "$script" ] && /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	printf '\n%-34s %9s %9s %7s %10s %10s\n' "PyTorch, average of 4 x 1 GiB" "torch" "ckpt" \
		"ratio" "torch RSS" "ckpt RSS"
	for c in "float32:b" "bfloat16:g"; do
		label=${c%%:*} stem=${c#*:}
		set -- "$W/${stem}0.bin" "$W/${stem}1.bin" "$W/${stem}2.bin" "$W/${stem}3.bin"
		: >"$W/torch.t"; : >"$W/ckpt.t"; : >"$W/torch.rss"; : >"$W/ckpt.rss"
		for r in $(seq "$N"); do
			: >"$W/rss"
			seconds /usr/bin/python3 -c "$TORCH_AVG" "$@" "$W/avg.out.bin" >>"$W/torch.t"
			cat "$W/rss" >>"$W/torch.rss"; : >"$W/rss"
			seconds "$B/bin/ckpt-average" -o "$W/avg.out.bin" "$@" >>"$W/ckpt.t"
			cat "$W/rss" >>"$W/ckpt.rss"
		done
		t=$(median <"$W/torch.t") a=$(median <"$W/ckpt.t")
		tm=$(median <"$W/torch.rss") am=$(median <"$W/ckpt.rss")
		awk -v l="$label" -v t="$t" -v a="$a" -v tm="$tm" -v am="$am" 'BEGIN {
			printf "%-34s %8.2fs %8.2fs %6.2fx %7.0f MiB %7.0f MiB\n", l, t, a, a / t,
			       tm / 1024, am / 1024 }'
	done
fi
rm -f "$W"/avg.out.* "$W/zero.out" "$W/floor.t" "$W/ckpt.t" "$W/time" "$W/stderr" \
	"$W/rss" "$W/torch.t" "$W/torch.rss" "$W/ckpt.rss"
