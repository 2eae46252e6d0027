#!/bin/sh
# h5diff_cases.sh CKPT_DIFF H5DIFF_DIR - run ckpt-diff on h5diff's own test
# cases that compare what ckpt-diff compares: two files, whole or one same
# path on both sides, exactly or with -d/--delta (= --atol).  Prints one
# line per case: "same|DIFFERENT <h5diff exit> <ckpt-diff exit> <args>".
prog=$1 dir=$2
tail -n +2 "$dir/tests.tsv" | while IFS='	' read -r expected want present args; do
	[ "$present" = yes ] || continue
	case "$want" in 0|1) ;; *) continue ;; esac
	set -- $args
	files="" objs="" opts="" ok=1
	while [ $# -gt 0 ]; do
		case $1 in
		-r|-v|-v[0-3]|--verbose=*|--report|-c) ;;
		-q) opts="$opts -q" ;;
		-d) opts="$opts --atol $(echo "$2" | tr -d '"')"; shift ;;
		--delta=*) opts="$opts --atol ${1#--delta=}" ;;
		-*) ok=0 ;;
		*.h5) files="$files $dir/testfiles/$1" ;;
		*) objs="$objs $1" ;;
		esac
		shift
	done
	[ $ok = 1 ] || continue
	set -- $files
	[ $# -eq 2 ] || continue
	a=$1 b=$2
	set -- $objs
	if [ $# -eq 2 ]; then
		[ "$1" = "$2" ] || continue
		name=${1#/}
		name=${name%/}
		# a dataset, or a group: what lies below it
		only=${name:+"--only $name --only $name/*"}
	elif [ $# -eq 0 ]; then
		only=""
	else
		continue
	fi
	set -f # the globs are for ckpt-diff
	"$prog" -q $opts $only "$a" "$b" >/dev/null 2>&1
	got=$?
	set +f
	if [ "$got" = "$want" ]; then v=same; else v=DIFFERENT; fi
	echo "$v $want $got $args"
done
