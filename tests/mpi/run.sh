#!/bin/sh
# tests/mpi/run.sh SERIAL_BUILD MPI_BUILD - the MPI programs against the
# serial ones (make check-mpi): for P = 1..4 ranks the same output, bit for
# bit, with the same structure, attributes and storage (tests/mpi/same.py,
# h5dump -A); ckpt-diff and ckpt-read --stats print the same;
# failures on any rank reported once, exit 2, nothing left behind.  The last
# line is "N passed, N failed".
S=$(cd "${1:-build}/bin" && pwd) || exit 2
M=$(cd "${2:-build-mpi}/bin" && pwd) || exit 2
top=$(pwd)
PY=/usr/bin/python3
SAME="$top/tests/mpi/same.py"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LC_ALL=C CKPT_DEBUG=0
# no warnings about a slow transport on a machine without a network card
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0
# containers without cross-memory attach: no warning about it
export OMPI_MCA_btl_vader_single_copy_mechanism=none
pass=0 fail=0

command -v mpirun >/dev/null || { echo "mpirun not installed (make deps)"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-mpi.XXXXXX") || exit 2
trap 'umount "$work/full" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2

ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# par P PROG ARGS...: under mpirun with P ranks, standard input from $IN;
# stdout in out, stderr in err, status in rc.
par() {
	p=$1 prog=$2
	shift 2
	timeout 120 mpirun -q --oversubscribe -n "$p" "$M/$prog" "$@" <"${IN:-/dev/null}" >out 2>err
	rc=$?
}

# Our own lines on stderr (mpirun adds a report of its own on failure).
ours() { grep -c "^$1: " err; }

# averaged NAME ARGS...: the serial ckpt-average and P = 1..4 ranks agree.
averaged() {
	name=$1
	shift
	rm -f serial.h5
	"$S/ckpt-average" -q -o serial.h5 "$@" 2>serr || { bad "$name: serial: $(cat serr)"; return; }
	for p in 1 2 3 4; do
		rm -f "p$p.h5"
		par "$p" ckpt-average -q -o "p$p.h5" "$@"
		if [ "$rc" -ne 0 ]; then
			bad "$name: P=$p: exit $rc: $(cat err)"
		elif ! $PY "$SAME" serial.h5 "p$p.h5" >same.out; then
			bad "$name: P=$p: $(head -n 3 same.out)"
		elif ! h5dump -A serial.h5 | sed 1d >dump.s || ! h5dump -A "p$p.h5" | sed 1d >dump.p ||
		     ! cmp -s dump.s dump.p; then
			bad "$name: P=$p: h5dump -A differs: $(diff dump.s dump.p | head -n 4)"
		else
			ok "$name: P=$p"
		fi
	done
}

# failed NAME PATTERN OUTPUT: exit 2, one line of ours matching PATTERN,
# and neither OUTPUT nor a temporary left.
failed() {
	if [ "$rc" -ne 2 ]; then
		bad "$1: exit $rc, expected 2: $(cat err)"
	elif [ "$(ours ckpt-average)" -ne 1 ] || ! grep -Eq -- "$2" err; then
		bad "$1: not one line matching '$2': $(cat err)"
	elif [ -e "$3" ] || ls -A . "$(dirname "$3")" | grep -q '^\..*tmp\|^\.ckpt'; then
		bad "$1: output or temporary left: $(ls -A . "$(dirname "$3")")"
	else
		ok "$1"
	fi
}

$PY "$top/tests/mpi/mkinputs.py" . || exit 2

averaged "mixed variables" a.h5 b.h5 c.h5
averaged "weights, float64" -w 1,2,3 --dtype f64 a.h5 b.h5 c.h5
averaged "bfloat16, only some" --dtype bf16 --only 'layer1/*' a.h5 b.h5 c.h5
averaged "partial" --partial a.h5 b.h5 c.h5 short.h5
# merge methods: the windows and dot products of a variable written
# collectively measured once for all ranks (or in shares), the others' by
# the rank that computes them; DARE's draws are keyed by element index;
# weights of many bits, elected in plain double with a bound
for m in "task-arithmetic --lambda 0.7" "ties --density 0.3" "ties --density 0.5 --sign count" \
         "dare-ties --density 0.6 --seed 5" "dare-linear --density 0.4 --seed 2" \
         "breadcrumbs --density 0.5 --gamma 0.05" "breadcrumbs-ties --density 0.5" \
         "model-stock" "ties --density 0.3 -w 0.3,0.7" "dare-ties --density 0.6 --seed 5 -w 0.3,0.7" \
         "ties --density 0.5 --sign count --no-normalize -w 0.3,-0.7"; do
	averaged "method $m" --method $m --base a.h5 b.h5 c.h5
done
# each variable written collectively has its windows found by one rank
# (the largest first, each by the rank with the least to read) and sent to
# the others; so has one that neighbours' runs of slabs share (at P = 3
# ranks 1 and 2 share strad's 'b')
for m in "ties --density 0.3" "breadcrumbs --density 0.4 --gamma 0.1"; do
	averaged "method $m, equal magnitudes" --method $m --base coarse0.h5 coarse1.h5 coarse2.h5
	averaged "method $m, shared by neighbours" --method $m --base strad0.h5 strad1.h5 strad2.h5
done
# said NAME FILES...: -v under P = 3 and 4 ranks says every variable's
# windows once, as the serial program does, whichever rank found them
# (those a rank other than 0 computes alone at the batch's end; an empty
# one, which no rank computes, in 0 passes)
said() {
	name=$1
	shift
	"$S/ckpt-average" -v -o vser.h5 -f --method ties --density 0.3 --base "$@" 2>serr
	grep 'magnitude windows found' serr | sort >said.serial
	for p in 3 4; do
		par "$p" ckpt-average -v -o "v$p.h5" -f --method ties --density 0.3 --base "$@"
		grep 'magnitude windows found' err | sort >said.par
		if [ "$rc" -eq 0 ] && [ -s said.serial ] && cmp -s said.serial said.par; then
			ok "-v, $name: every variable's windows said at P=$p"
		else
			bad "-v, $name at P=$p: exit $rc: $(diff said.serial said.par | head -n 4)"
		fi
	done
}
said "written collectively" coarse0.h5 coarse1.h5 coarse2.h5
said "shared by neighbours" strad0.h5 strad1.h5 strad2.h5
said "computed alone" a.h5 b.h5 c.h5
averaged "method slerp" --method slerp -t 0.4 b.h5 c.h5
averaged "method slerp, a tie" --method slerp -t 0.3 tie0.h5 tie1.h5
par 3 ckpt-average -v -o tie.h5 --method slerp -t 0.3 tie0.h5 tie1.h5
if [ "$rc" -eq 0 ] && grep -q '^ckpt-average: x: dot products measured in 2 passes' err; then
	ok "method slerp, a tie: an exact second pass"
else
	bad "method slerp, a tie: exit $rc, not 2 passes: $(cat err)"
fi
# one small variable: the other ranks get no work
averaged "ranks without work" tiny0.h5 tiny1.h5
averaged "user block" ub0.h5 ub1.h5
if cmp -s -n 512 ub0.h5 p4.h5; then ok "user block kept"; else bad "user block not kept"; fi
# TensorFlow bundles as inputs: each rank reads its slabs from the data files
for x in a b c; do
	"$S/ckpt-average" -q -o "t$x.index" "$x.h5" 2>/dev/null || bad "cannot make t$x.index"
done
averaged "TensorFlow bundles" ta.index tb.index tc.index
# PyTorch files as inputs (their storages read in place by every rank)
for x in a b c; do
	"$S/ckpt-average" -q -o "t$x.pt" "$x.h5" 2>/dev/null || bad "cannot make t$x.pt"
done
averaged "PyTorch files" ta.pt tb.pt tc.pt

par 2 ckpt-average -o - a.h5 b.h5
failed "standard output refused" "under MPI the output is an HDF5 file" "-"
par 3 ckpt-average -o x.safetensors a.h5 b.h5
failed "safetensors output refused" "under MPI the output is an HDF5 file" x.safetensors
par 3 ckpt-average -o x.index a.h5 b.h5
failed "TensorFlow bundle output refused" "under MPI the output is an HDF5 file" x.index
par 3 ckpt-average -o x.pt a.h5 b.h5
failed "PyTorch output refused" "under MPI the output is an HDF5 file" x.pt
par 3 ckpt-average -o x.h5 a.h5 missing.h5
failed "missing input" "missing.h5: No such file" x.h5
par 2 ckpt-average -o x.h5 a.h5 short.h5
failed "mismatch" "lacks variable" x.h5
par 2 ckpt-average --bogus -o x.h5 a.h5
if [ "$rc" -eq 2 ] && [ "$(ours ckpt-average)" -eq 1 ] && [ "$(grep -c '^usage: ' err)" -eq 1 ]; then
	ok "usage error"
else
	bad "usage error: exit $rc: $(cat err)"
fi
cp a.h5 keep.h5
par 2 ckpt-average -o keep.h5 a.h5 b.h5
if [ "$rc" -eq 2 ] && [ "$(ours ckpt-average)" -eq 1 ] && cmp -s a.h5 keep.h5; then
	ok "existing output kept"
else
	bad "existing output: exit $rc: $(cat err)"
fi

# A bad input on one rank only: each rank runs in its own directory, where
# rank 1's copy of b.h5 has damaged gzip chunks (as nodes with different
# local disks would): it fails in the middle of collective writes.
for r in 0 1 2; do
	mkdir -p "rank$r"
	cp -p a.h5 "rank$r/a.h5"
	cp -p b.h5 "rank$r/b.h5"
done
# The damage is inside the file, its size and time those of the others'
# copies: the ranks' check that they read the same files cannot see it.
$PY "$top/tests/mpi/mkinputs.py" --damage rank1/b.h5 || exit 2
$PY - b.h5 rank1/b.h5 <<'PY' || exit 2
import sys
good, bad = open(sys.argv[1], "rb").read(), bytearray(open(sys.argv[2], "rb").read())
assert len(good) == len(bad)
k = 1 << 16
bad[:k], bad[-k:] = good[:k], good[-k:]
assert bad != good
open(sys.argv[2], "wb").write(bad)
PY
touch -r b.h5 rank1/b.h5
# byrank ARGS...: ckpt-average ARGS -o damaged.h5 under 3 ranks, each in
# its own directory rank$R, with its own copies of the inputs
byrank() {
	printf '#!/bin/sh\ncd "rank$OMPI_COMM_WORLD_RANK" && exec "%s/ckpt-average" -o ../damaged.h5 %s\n' \
		"$M" "$*" >byrank.sh
	timeout 300 mpirun -q --oversubscribe -n 3 sh byrank.sh >out 2>err
	rc=$?
}
byrank a.h5 b.h5
failed "bad input on one rank" "b.h5: (.*(read error|filter|decompress|zip)|.*error)" damaged.h5
grep -q "sees another file" err && bad "bad input on one rank: taken for another file"
# The same under TIES: rank 1 finds the windows of 'big' for all three and
# fails reading them, while the others wait for them in the exchange.
byrank --method ties --density 0.3 --base a.h5 b.h5
failed "bad input on the rank finding windows" "b.h5: (.*(read error|filter|decompress|zip)|.*error)" \
	damaged.h5
# Another file under the same name on one rank: refused before any work.
cp -p c.h5 rank2/b.h5
byrank a.h5 b.h5
failed "another file on one rank" "b.h5: rank 2 sees another file under this name than rank 0 \\((sizes|contents) differ\\)" damaged.h5

# A full file system (a small tmpfs, where one can be mounted): every rank
# stops, in bounded time (a rank left inside a collective write of ROMIO's
# that went on without the error is waited for CKPT_MPI_STOP_WAIT seconds,
# then the run is aborted), exit 2, no output and no temporary.
mkdir -p full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	umount full
	"$S/ckpt-average" -q -o fullref.h5 a.h5 b.h5 || exit 2
	# (the output takes about 14.7 MiB: at 15m it fits, just)
	for size in 8k 16k 1m 4m 14m 15m; do
		for p in 1 2 3 4; do
			mount -t tmpfs -o size=$size tmpfs full
			CKPT_MPI_STOP_WAIT=5 par $p ckpt-average -o full/x.h5 a.h5 b.h5
			if [ "$rc" -eq 0 ] && [ $size = 15m ]; then
				if $PY "$SAME" fullref.h5 full/x.h5 >same.out; then
					ok "nearly full disk, P=$p: written whole"
				else
					bad "nearly full disk, P=$p: $(head -n 3 same.out)"
				fi
			elif [ "$rc" -ne 2 ]; then
				bad "full disk ($size), P=$p: exit $rc: $(tail -n 3 err)"
			elif [ "$(ours ckpt-average)" -lt 1 ] || grep -v '^ckpt-average: ' err | grep -q .; then
				bad "full disk ($size), P=$p: stderr: $(cat err)"
			elif [ -n "$(ls -A full)" ]; then
				bad "full disk ($size), P=$p: left $(ls -A full)"
			else
				ok "full disk ($size), P=$p"
			fi
			umount full
		done
	done
else
	echo "skip: full disk cases (no tmpfs can be mounted here)"
fi

# matches PROG ARGS...: the same standard output, standard error and exit
# status as the serial program, for P = 1..4.
matches() {
	prog=$1
	shift
	"$S/$prog" "$@" <"${IN:-/dev/null}" >sout 2>serr
	src=$?
	for p in 1 2 3 4; do
		par "$p" "$prog" "$@"
		if [ "$rc" -ne "$src" ]; then
			bad "$prog $*: P=$p: exit $rc, serial $src: $(cat err)"
		elif ! cmp -s sout out || ! cmp -s serr err; then
			bad "$prog $*: P=$p: output differs: $(diff sout out | head -n 4)"
		else
			ok "$prog $*: P=$p"
		fi
	done
}

matches ckpt-diff a.h5 b.h5
matches ckpt-diff a.h5 a.h5
matches ckpt-diff --json --stats a.h5 short.h5
matches ckpt-diff --stats -n 2 short.h5 c.h5
matches ckpt-diff --json -n 3 --atol 1 tiny0.h5 a.h5
matches ckpt-diff a.h5 missing.h5
matches ckpt-read --stats a.h5
matches ckpt-read --stats --json a.h5 b.h5 tiny1.h5
matches ckpt-read --stats --tsv --only 'layer1/*' short.h5
matches ckpt-read --stats -v c.h5
matches ckpt-read --stats missing.h5
# standard input reaches rank 0 only: it reads, every rank gets the bytes
IN=a.h5 matches ckpt-diff --json - b.h5
IN=c.h5 matches ckpt-read --stats -
IN=/dev/null matches ckpt-read --stats -

# ckpt-train: rank i is worker i; the result is --workers P's, bit for bit
for sync in params grads; do
	for p in 1 2 3 4; do
		"$S/ckpt-train" -q --workers $p --sync $sync --features 3 --outputs 2 \
		    --iterations 50 -o "ts$p$sync.h5" 2>serr || { bad "train: serial: $(cat serr)"; continue; }
		par "$p" ckpt-train -q --sync $sync --features 3 --outputs 2 --iterations 50 \
		    -o "tp$p$sync.h5"
		if [ "$rc" -ne 0 ]; then
			bad "train --sync $sync: P=$p: exit $rc: $(cat err)"
		elif ! $PY "$SAME" "ts$p$sync.h5" "tp$p$sync.h5" >same.out; then
			bad "train --sync $sync: P=$p: $(head -n 3 same.out)"
		else
			ok "train --sync $sync: P=$p"
		fi
	done
done
"$S/ckpt-train" --workers 3 --print-every 10 --iterations 30 -o ts.h5 2>serr.log
par 3 ckpt-train --print-every 10 --iterations 30 -o tp.h5
if [ "$rc" -eq 0 ] && cmp -s serr.log err; then
	ok "train: the same report, once"
else
	bad "train report: exit $rc: $(diff serr.log err)"
fi
par 2 ckpt-train --workers 3 -o tw.h5
if [ "$rc" -eq 2 ] && [ "$(ours ckpt-train)" -eq 1 ] && grep -q "workers are the 2 ranks" err &&
   [ ! -e tw.h5 ]; then
	ok "train: --workers other than P refused"
else
	bad "train --workers: exit $rc: $(cat err)"
fi
par 2 ckpt-train --gradients -o tg.h5
if [ "$rc" -eq 2 ] && [ "$(ours ckpt-train)" -eq 1 ] && [ ! -e tg.h5 ]; then
	ok "train: one-step modes refused"
else
	bad "train --gradients: exit $rc: $(cat err)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
