#!/bin/sh
# tests/bench/scale.sh BUILD_DIR WORK_DIR PY - the cost per variable: 10^4,
# 10^5 and 10^6 scalar float32 variables listed (beside h5ls -r) and
# averaged (two inputs), HDF5 and safetensors; one run each (10^6 takes
# minutes), wall time, peak memory, and both per variable.
set -eu
B=$1 W=$2 PY=$3
one() { # label n command...: one run
	label=$1 n=$2
	shift 2
	rm -f "$W"/*.out
	/usr/bin/time -f '%e %M' -o "$W/time" "$@" >/dev/null 2>"$W/stderr" ||
		{ echo "bench: failed: $*"; cat "$W/stderr"; exit 1; }
	read -r s k <"$W/time"
	awk -v l="$label" -v n="$n" -v s="$s" -v k="$k" 'BEGIN {
		printf "%-34s %8.2f s %9.1f MiB %8.2f us %7.0f B per variable\n",
		       l, s, k / 1024, s / n * 1e6, k * 1024 / n }'
}
for n in 10000 100000 1000000; do
	[ -f "$W/h$n.h5" ] || "$PY" tests/bench/scalars.py $n h5 "$W"
	[ -f "$W/s$n.safetensors" ] || "$PY" tests/bench/scalars.py $n st "$W"
	echo "-- $n variables"
	one "h5ls -r" $n h5ls -r "$W/h$n.h5"
	one "ckpt-read (HDF5)" $n "$B/bin/ckpt-read" "$W/h$n.h5"
	one "ckpt-average 2 (HDF5)" $n "$B/bin/ckpt-average" -o "$W/avg.out" "$W/h$n.h5" "$W/h$n.h5"
	one "ckpt-read (safetensors)" $n "$B/bin/ckpt-read" "$W/s$n.safetensors"
	one "ckpt-average 2 (safetensors)" $n "$B/bin/ckpt-average" -o "$W/avg.out" \
		"$W/s$n.safetensors" "$W/s$n.safetensors"
done
rm -f "$W"/*.out
