#!/bin/sh
# Data-parallel training from the shell: four workers train the reference
# model one step each, as separate processes, and ckpt-average makes their
# mean the next starting point -- parameter averaging with only named arrays
# travelling between processes.  The result is then checked, bit for bit,
# against the same training run inside one process.
#
#   examples/shell-training.sh [ITERATIONS] [DIR]     (PATH must hold ckpt-*)
set -eu
n=${1:-50}
dir=${2:-$(mktemp -d "${TMPDIR:-/tmp}/ckpt-demo.XXXXXX")}
cd "$dir"

ckpt-train -q --steps 0 -o avg.h5                  # the shared starting point
it=0
while [ "$it" -lt "$n" ]; do
	for i in 0 1 2 3; do                           # worker i trains on batch i
		ckpt-train -q --init avg.h5 --data-seed "$i" --steps 1 -f -o "w$i.h5"
	done
	ckpt-average -f -o avg.h5 w0.h5 w1.h5 w2.h5 w3.h5
	it=$((it + 1))
	if [ $((it % 10)) -eq 0 ]; then
		printf 'iteration %3d: ' "$it"
		ckpt-read -q --tsv --values avg.h5 | awk -F'\t' '
			NR > 1 { printf "%s=%s ", $2, $4 } END { print "" }'
	fi
done

ckpt-train -q --workers 4 --iterations "$n" -o inprocess.h5
if [ "$(ckpt-read -q --values avg.h5)" = "$(ckpt-read -q --values inprocess.h5)" ]; then
	echo "after $n iterations: identical to ckpt-train --workers 4 (in $dir)"
else
	echo "after $n iterations: DIFFERENT from ckpt-train --workers 4 (in $dir)" >&2
	exit 1
fi
