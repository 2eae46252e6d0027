#!/bin/sh
# tests/case.sh NAME - run one CLI case for tests/run.sh (which sets the
# environment: work, bin, realbin, fixtures, top, times) in its own empty
# directory; its exit status and output go to $work/res/NAME.{rc,out} (NAME
# with / as _), its time in milliseconds to $times.new.
name=$1
flat=$(echo "$name" | tr / _)
T="$work/case/$name"
mkdir -p "$T" "$work/res"
guardlog="$work/guard/$flat.log"
now() { date +%s%N | cut -c1-13; }
t0=$(now)
out=$(cd "$T" && BIN="$bin" REALBIN="$realbin" FIX="$fixtures" TOP="$top" T="$T" \
      CASE="$name" CKPT_GUARD_LOG="$guardlog" sh -c '. "$TOP/tests/cli/lib.sh"; . "$TOP/tests/cli/$CASE.sh"' 2>&1)
rc=$?
echo "$(($(now) - t0)) $name" >>"$times.new"
if [ -s "$guardlog" ] && [ "$rc" -ne 77 ]; then
	out=$(printf '%s\n' "$out"; cat "$guardlog")
	rc=1
fi
printf '%s\n' "$out" >"$work/res/$flat.out"
echo "$rc" >"$work/res/$flat.rc"
