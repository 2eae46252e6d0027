#!/bin/sh
# tests/bench/run.sh BUILD_DIR - make bench: realistic checkpoints (about
# 1 GiB, ~150 float32 variables), and for each program its wall time and
# peak memory beside the floor (cat of the same bytes) and what a user
# would otherwise use (h5py + numpy, h5ls), as ratios, in one run.
# Timing is the best of 3 runs with a warm page cache.  Never part of check.
set -eu
B=${1:-build}
W=${CKPT_BENCH_DIR:-$B/bench}
mkdir -p "$W"
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import h5py, numpy' 2>/dev/null && PY=$p && break
done

for i in 0 1 2 3; do
	[ -f "$W/b$i.h5" ] || "$B/tests/mkbench" $i "$W/b$i.h5"
done
[ -f "$W/many.h5" ] || "$B/tests/mkfixtures" --many 10000 "$W/many.h5"

# best SECONDS and peak MiB of a command, stdout discarded; outputs are
# removed and dirty pages written back before each run, so that no run
# pays for the one before (the floor alike)
measure() {
	best= mem=0
	for i in 1 2 3; do
		rm -f "$W"/*.out
		sync
		/usr/bin/time -f '%e %M' -o "$W/time" "$@" >/dev/null 2>"$W/stderr" ||
			{ echo "bench: failed: $*"; cat "$W/stderr"; exit 1; }
		set -- "$@"
		read -r s k <"$W/time"
		best=$(awk -v a="${best:-$s}" -v b="$s" 'BEGIN { print (b < a ? b : a) }')
		mem=$(awk -v a="$mem" -v b="$k" 'BEGIN { print (b > a ? b : a) }')
	done
	echo "$best $(awk -v k="$mem" 'BEGIN { printf "%.1f", k / 1024 }')"
}

row() { # label seconds mib floor_seconds [other_seconds]
	awk -v l="$1" -v s="$2" -v m="$3" -v f="$4" -v o="${5:-}" 'BEGIN {
		printf "%-34s %8.2f s %9.1f MiB %8.2fx floor", l, s, m, s / f
		if (o != "") printf " %8.2fx faster than it", o / s
		printf "\n" }'
}

echo "workload: $(ls -l "$W/b0.h5" | awk '{ printf "%.0f MiB", $5 / 1048576 }'), $("$B/bin/ckpt-read" -q --names "$W/b0.h5" | wc -l) variables"
cat "$W/b0.h5" >/dev/null
set -- $(measure cat "$W/b0.h5"); floor=$1
row "floor: cat" "$1" "$2" "$floor"

echo "== ckpt-read --stats"
if [ -n "$PY" ]; then
	set -- $(measure "$PY" tests/bench/stats.py "$W/b0.h5"); py=$1
	row "h5py + numpy script" "$1" "$2" "$floor"
else
	py= ; echo "h5py + numpy: not installed, no comparison"
fi
set -- $(measure "$B/bin/ckpt-read" --stats "$W/b0.h5")
row "ckpt-read --stats" "$1" "$2" "$floor" "$py"

echo "== ckpt-read --stats, 10^6 float32 in one-value chunks (memory)"
if [ -n "$PY" ]; then
	"$PY" -c 'import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("w", data=np.arange(10**6, dtype="f4"), chunks=(1,))' "$W/tiny.h5"
	set -- $(measure cat "$W/tiny.h5"); tfloor=$1
	set -- $(measure "$PY" tests/bench/stats.py "$W/tiny.h5"); tpy=$1
	row "h5py + numpy script" "$1" "$2" "$tfloor"
	set -- $(measure "$B/bin/ckpt-read" --stats "$W/tiny.h5")
	row "ckpt-read --stats" "$1" "$2" "$tfloor" "$tpy"
else
	echo "h5py + numpy: not installed, no file with tiny chunks"
fi

echo "== listing 10,000 variables"
set -- $(measure h5ls -r "$W/many.h5"); h5ls=$1
row "h5ls -r" "$1" "$2" "$h5ls"
set -- $(measure "$B/bin/ckpt-read" "$W/many.h5")
row "ckpt-read (ratio: to h5ls -r)" "$1" "$2" "$h5ls" "$h5ls"

echo "== ckpt-average of 2 inputs with many small variables (cost per variable)"
for n in 20000 200000; do
	[ -f "$W/many$n.h5" ] || "$B/tests/mkfixtures" --many $n "$W/many$n.h5"
	set -- $(measure "$B/bin/ckpt-read" "$W/many$n.h5"); rd=$1
	row "ckpt-read, $n variables" "$1" "$2" "$rd"
	if [ -n "$PY" ] && [ $n -le 20000 ]; then
		set -- $(measure "$PY" tests/bench/average.py "$W/py.out" "$W/many$n.h5" "$W/many$n.h5"); py=$1
		row "h5py + numpy script" "$1" "$2" "$rd"
	else
		py=
	fi
	set -- $(measure "$B/bin/ckpt-average" -o "$W/avg.out" "$W/many$n.h5" "$W/many$n.h5")
	row "ckpt-average (ratio: to ckpt-read)" "$1" "$2" "$rd" "$py"
	awk -v s="$1" -v n=$n 'BEGIN { printf "%-34s %8.1f us\n", "  per variable", s / n * 1e6 }'
done
rm -f "$W/py.out" "$W/avg.out"

echo "== ckpt-average of 4 inputs"
cat "$W"/b[0-3].h5 >/dev/null
size=$(wc -c <"$W/b0.h5")
set -- $(measure cat "$W/b0.h5" "$W/b1.h5" "$W/b2.h5" "$W/b3.h5"); rd=$1
set -- $(measure sh -c "head -c $size /dev/zero >'$W/zero.out'"); wr=$1
floor=$(awk -v a="$rd" -v b="$wr" 'BEGIN { print a + b }')
row "floor: cat inputs + write output" "$floor" 0 "$floor"
if [ -n "$PY" ]; then
	set -- $(measure "$PY" tests/bench/average.py "$W/py.out" "$W"/b[0-3].h5); py=$1
	row "h5py + numpy script" "$1" "$2" "$floor"
else
	py=
fi
set -- $(measure "$B/bin/ckpt-average" -o "$W/avg.out" "$W"/b[0-3].h5)
row "ckpt-average" "$1" "$2" "$floor" "$py"
rm -f "$W/zero.out" "$W/py.out" "$W/avg.out"

echo "== ckpt-average of 4 safetensors inputs (the same values)"
for i in 0 1 2 3; do
	[ -f "$W/b$i.safetensors" ] || "$B/bin/ckpt-average" -q -o "$W/b$i.safetensors" "$W/b$i.h5"
done
cat "$W"/b[0-3].safetensors >/dev/null
size=$(wc -c <"$W/b0.safetensors")
set -- $(measure cat "$W"/b[0-3].safetensors); rd=$1
set -- $(measure sh -c "head -c $size /dev/zero >'$W/zero.out'"); wr=$1
floor=$(awk -v a="$rd" -v b="$wr" 'BEGIN { print a + b }')
row "floor: cat inputs + write output" "$floor" 0 "$floor"
set -- $(measure "$B/bin/ckpt-average" -o "$W/avg.out" "$W"/b[0-3].safetensors)
row "ckpt-average (safetensors)" "$1" "$2" "$floor"
# the same values as sets of 4 shards, averaged into a set: the set commit
# (shards and maps synced to the disk, then renamed) beside the same floor;
# each run replaces the set the one before wrote, as -f does in a job
for i in 0 1 2 3; do
	[ -f "$W/s$i.safetensors.index.json" ] ||
		"$B/bin/ckpt-merge" -q --split 4 --by size -o "$W/s$i.safetensors.index.json" \
		    "$W/b$i.safetensors"
done
set -- $(measure "$B/bin/ckpt-average" -f -o "$W/avgset.safetensors.index.json" \
    "$W"/s[0-3].safetensors.index.json)
row "ckpt-average (safetensors sets, 4 shards)" "$1" "$2" "$floor"
rm -f "$W/zero.out" "$W/avg.out" "$W"/avgset*

echo "== the average of four 1 GiB checkpoints beside the floor (medians of alternating runs)"
sh tests/bench/floor.sh "$B" "$W"

echo "== merge methods (ckpt-average --method) beside the linear average and numpy"
sh tests/bench/methods.sh "$B" "$W"
echo "== merge methods with weights 0.3, 0.3, 0.4 (beside the linear average so weighted)"
CKPT_BENCH_WEIGHTS=0.3,0.3,0.4 sh tests/bench/methods.sh "$B" "$W"

echo "== 16-bit: four inputs of 64 Mi values each, float32 / float16 / bfloat16"
for i in 0 1 2 3; do
	[ -f "$W/w32_$i.h5" ] || "$B/tests/mkbench" $i "$W/w32_$i.h5" --one 0.25
	for t in f16 bf16; do
		[ -f "$W/w${t}_$i.h5" ] ||
			"$B/bin/ckpt-average" -q --dtype $t -o "$W/w${t}_$i.h5" "$W/w32_$i.h5"
	done
done
# each program's f32 time is the reference its 16-bit rows are a ratio to
for t in 32 f16 bf16; do
	cat "$W"/w${t}_[0-3].h5 >/dev/null
	set -- $(measure cat "$W"/w${t}_[0-3].h5); rd=$1
	row "floor: cat inputs ($t)" "$1" "$2" "$rd"
	py=
	if [ -n "$PY" ] && [ $t = f16 ]; then
		set -- $(measure "$PY" tests/bench/average.py "$W/py.out" "$W"/w${t}_[0-3].h5); py=$1
		row "h5py + numpy script (float64 sums)" "$1" "$2" "$rd"
	fi
	set -- $(measure "$B/bin/ckpt-average" -o "$W/avg.out" "$W"/w${t}_[0-3].h5)
	[ $t = 32 ] && avg32=$1
	row "ckpt-average ($t; ratio: to f32)" "$1" "$2" "$avg32" "$py"
	set -- $(measure "$B/bin/ckpt-read" --stats "$W/w${t}_0.h5")
	[ $t = 32 ] && st32=$1
	row "ckpt-read --stats ($t; ratio: to f32)" "$1" "$2" "$st32"
	set -- $(measure sh -c "'$B/bin/ckpt-diff' -q '$W/w${t}_0.h5' '$W/w${t}_1.h5'; [ \$? -le 1 ]")
	[ $t = 32 ] && df32=$1
	row "ckpt-diff -q ($t; ratio: to f32)" "$1" "$2" "$df32"
done
rm -f "$W/py.out" "$W/avg.out"

echo "== ckpt-average, one 2 GiB variable in each of 2 inputs (memory)"
for i in 0 1; do
	[ -f "$W/huge$i.h5" ] || "$B/tests/mkbench" $i "$W/huge$i.h5" --one 2
done
set -- $(measure "$B/bin/ckpt-average" -o "$W/huge.out" "$W/huge0.h5" "$W/huge1.h5")
row "ckpt-average (2 x 2 GiB)" "$1" "$2" "$1"
rm -f "$W/huge.out"

echo "== ckpt-diff of two 1 GiB checkpoints"
[ -f "$W/b0copy.h5" ] || cp "$W/b0.h5" "$W/b0copy.h5"
for pair in "identical:b0.h5 b0copy.h5" "all different:b0.h5 b1.h5"; do
	what=${pair%%:*}
	set -- ${pair#*:}
	a=$W/$1 b=$W/$2
	cat "$a" "$b" >/dev/null
	set -- $(measure cat "$a" "$b"); floor=$1
	row "floor: cat both ($what)" "$1" "$2" "$floor"
	set -- $(measure sh -c "h5diff '$a' '$b' >/dev/null; [ \$? -le 1 ]"); h5d=$1
	row "h5diff ($what)" "$1" "$2" "$floor"
	set -- $(measure sh -c "'$B/bin/ckpt-diff' -q '$a' '$b'; [ \$? -le 1 ]")
	row "ckpt-diff -q ($what)" "$1" "$2" "$floor" "$h5d"
done

echo "== ckpt-flatten and ckpt-unflatten of a 1 GiB checkpoint"
size=$(wc -c <"$W/b0.h5")
cat "$W/b0.h5" >/dev/null
set -- $(measure cat "$W/b0.h5"); rd=$1
set -- $(measure sh -c "head -c $size /dev/zero >'$W/zero.out'"); wr=$1
floor=$(awk -v a="$rd" -v b="$wr" 'BEGIN { print a + b }')
row "floor: cat input" "$rd" 0 "$rd"
row "floor: cat input + write output" "$floor" 0 "$floor"
set -- $(measure sh -c "cat '$W/b0.h5' | cat >/dev/null"); pipe=$1
row "floor: cat input | cat" "$1" 0 "$pipe"
set -- $(measure sh -c "'$B/bin/ckpt-flatten' '$W/b0.h5' | cat >/dev/null")
row "ckpt-flatten | cat" "$1" "$2" "$pipe"
if [ -n "$PY" ]; then
	set -- $(measure "$PY" tests/bench/flatten.py "$W/b0.h5" "$W/py.out"); py=$1
	row "h5py + numpy script" "$1" "$2" "$floor"
else
	py=
fi
set -- $(measure "$B/bin/ckpt-flatten" -o "$W/flat.out" "$W/b0.h5")
row "ckpt-flatten -o FILE" "$1" "$2" "$floor" "$py"
set -- $(measure "$B/bin/ckpt-flatten" --bundle -o "$W/bundle.out" "$W/b0.h5")
row "ckpt-flatten --bundle (tar)" "$1" "$2" "$floor" "$py"
"$B/bin/ckpt-flatten" -o "$W/b0.flat" "$W/b0.h5"
"$B/bin/ckpt-flatten" --bundle -o "$W/b0.tar" "$W/b0.h5"
cat "$W/b0.flat" >/dev/null
if [ -n "$PY" ]; then
	set -- $(measure "$PY" tests/bench/unflatten.py "$W/b0.h5" "$W/b0.flat" "$W/py.out"); py=$1
	row "h5py + numpy script (set_flat)" "$1" "$2" "$floor"
else
	py=
fi
set -- $(measure "$B/bin/ckpt-unflatten" --template "$W/b0.h5" -o "$W/unflat.out" "$W/b0.flat")
row "ckpt-unflatten --template" "$1" "$2" "$floor" "$py"
set -- $(measure "$B/bin/ckpt-unflatten" -o "$W/unflat.out" "$W/b0.tar")
row "ckpt-unflatten (bundle)" "$1" "$2" "$floor" "$py"
rm -f "$W/zero.out" "$W/py.out" "$W/flat.out" "$W/bundle.out" "$W/unflat.out" \
	"$W/b0.flat" "$W/b0.tar"

echo "== the cost per variable: 10^4, 10^5, 10^6 scalar variables"
if [ -n "$PY" ]; then
	sh tests/bench/scale.sh "$B" "$W" "$PY"
else
	echo "h5py + numpy: not installed, no files of scalars"
fi
