#!/bin/sh
# tests/guard.sh PROGRAM ARGS... - run a ckpt program and check that it
# changed none of its inputs: every existing regular file named on the
# command line, and every regular file in the working directory, is
# checksummed before and after, except the outputs the command names
# (-o/--output, ckpt-flatten's --manifest; a %d pattern stands for its
# shards, NAME.weights.json for NAME_*.weights.h5 too and
# NAME.safetensors.index.json for NAME-*-of-*.safetensors, PREFIX.index
# for PREFIX.data-*-of-*; a link given as -o
# stands for its target) and what stdout and
# stderr were sent to.  A changed input is written to $CKPT_GUARD_LOG,
# which tests/run.sh turns into a failure of the case.
# Of the working directory's files not named on the command line, the
# cases' own scratch text is left out (names without a dot but TF's
# `checkpoint`, *.out, *.txt, *.tsv, *.err, *.log): a case may write it
# from a pipeline the program is part of (`ckpt-read f | sort >got`),
# which can happen after the program exits and before the check; and so
# are the temporaries another program of the pipeline writes its output
# into (.NAME.XXXXXX, renamed to NAME at its end: `ckpt-flatten f |
# ckpt-unflatten -o u.h5`).
prog=$1
shift

# The outputs, as absolute glob patterns, one per line.
outs=
add_out() {
	case $1 in /*) o=$1 ;; *) o=$PWD/${1#./} ;; esac
	while :; do # %d, %05d, ... stand for any shard number
		case $o in
		*%[0-9]*d*|*%d*) pre=${o%%\%*} rest=${o#*%}; rest=${rest#*d}; o=$pre*$rest ;;
		*) break ;;
		esac
	done
	outs="$outs
$o"
	case $o in # a sharded set: its shards too
	*.weights.json) outs="$outs
${o%.weights.json}_[0-9]*.weights.h5" ;;
	*.safetensors.index.json) outs="$outs
${o%.safetensors.index.json}-[0-9]*-of-[0-9]*.safetensors" ;;
	*.index) outs="$outs
${o%.index}.data-[0-9]*-of-[0-9]*" ;;
	esac
	[ -L "$1" ] && outs="$outs
$(readlink -f "$1")"
}
prev=
for a; do
	case $prev in
	-o|--output) add_out "$a" ;;
	--manifest) [ "${prog##*/}" = ckpt-flatten ] && add_out "$a" ;;
	esac
	case $a in
	-o?*) add_out "${a#-o}" ;;
	--output=*) add_out "${a#--output=}" ;;
	--manifest=*) [ "${prog##*/}" = ckpt-flatten ] && add_out "${a#--manifest=}" ;;
	esac
	prev=$a
done

is_output() {
	case $1 in /*) f=$1 ;; *) f=$PWD/${1#./} ;; esac
	old=$IFS
	IFS='
'
	for o in $outs; do
		case $f in $o) IFS=$old; return 0 ;; esac
	done
	IFS=$old
	return 1
}

# where the shell sent stdout and stderr (outputs too); either may be closed
if [ -e /proc/$$/fd/1 ]; then exec 8>&1; else exec 8>/dev/null; fi
if [ -e /proc/$$/fd/2 ]; then exec 9>&2; else exec 9>/dev/null; fi
sums=$(mktemp "${TMPDIR:-/tmp}/ckpt-guard.XXXXXX") || exit 2
scratch() {
	case ${1##*/} in
	checkpoint) return 1 ;;
	*.out|*.txt|*.tsv|*.err|*.log) return 0 ;;
	.?*.[!.][!.][!.][!.][!.][!.]) return 0 ;;
	*.*) return 1 ;;
	esac
	return 0
}
# a regular file, neither an output nor where stdout or stderr go
listed() {
	[ -f "$1" ] && [ ! -L "$1" ] || return 0
	[ "$1" -ef /dev/fd/8 ] || [ "$1" -ef /dev/fd/9 ] || is_output "$1" ||
		printf '%s\0' "$1"
}
{
	for f in "$@"; do listed "$f"; done
	for f in ./* ./.[!.]*; do scratch "$f" || listed "$f"; done
} 2>/dev/null | xargs -0 -r md5sum -- >"$sums" 2>/dev/null
"$prog" "$@" 8>&- 9>&-
rc=$?
if [ -s "$sums" ] && ! md5sum -c --quiet "$sums" >"$sums.bad" 2>&1; then
	{ printf 'input changed by %s:' "${prog##*/}"; printf ' %s' "$@"; echo
	  sed 's/^/    /' "$sums.bad"; } >>"${CKPT_GUARD_LOG:-/dev/stderr}"
fi
rm -f "$sums" "$sums.bad"
exit $rc
