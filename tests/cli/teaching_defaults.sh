#!/bin/sh
# Defaults work for every op: `ccsim explain --op X` (sweep) and `ccsim --op X` (no --algo) run and print
# a selection map / a table; a few explain outputs a student reads are checked by hand.
set -eu
ccsim="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
for op in allreduce allgather reducescatter broadcast reduce gather scatter alltoall; do
  out=$("$ccsim" explain --op "$op" --max 1M 2>/dev/null) || fail "explain --op $op exits non-zero"
  echo "$out" | grep -q "Selection map" || fail "explain --op $op prints no selection map"
  out=$("$ccsim" --op "$op" -e 64K 2>/dev/null) || fail "ccsim --op $op exits non-zero"
  echo "$out" | grep -q "^ *65536 " || fail "ccsim --op $op prints no 64 KiB row"
done
# The default algorithm is named in the header: binomial for gather, pairwise for alltoall.
"$ccsim" --op gather -e 1K | grep -q "binomial" || fail "gather's default is not binomial"
"$ccsim" --op alltoall -e 1K | grep -q "pairwise" || fail "alltoall's default is not pairwise"
# Bruck's local rotation is one phrase with a count, not 19 copies of the same words.
line=$("$ccsim" explain --op alltoall --algo bruck --ranks 20 --size 20M | grep "step 0:")
[ "$line" = "   step 0: copy 1 MiB locally (x30)" ] || fail "bruck step 0 reads '$line'"
# Alltoall's bound is not Chan et al.'s (they do not cover alltoall).
"$ccsim" explain --op alltoall --algo pairwise --ranks 8 | grep -q "5. Lower bound (one-port counting" || fail "alltoall bound source"
# p = 6 recursive doubling: the schedule shows rank 1, a survivor that runs the rounds, not rank 0 that only folds.
"$ccsim" explain --op allreduce --algo recursive_doubling --ranks 6 | grep -q "rank 1 runs 4 step(s)" || fail "shown rank"
echo ok
