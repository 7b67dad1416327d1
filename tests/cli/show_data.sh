#!/bin/sh
# explain --show-data: the MindSpore 4-rank examples executed on data, the expected buffers written out
# by hand from the collectives' definitions (../shared/reference/course-notes.md), and its refusals.
# Usage: show_data.sh CCSIM
set -u
ccsim=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_line() { # command output must hold this exact line
  printf '%s\n' "$1" | grep -qxF -- "$2" || fail "$3: no line '$2' in:
$1"
}
# AllReduce(SUM), rank r holds r: 0+1+2+3 = 6 everywhere.
out=$("$ccsim" explain --op allreduce --algo ring --ranks 4 --size 4 --show-data)
for r in 0 1 2 3; do expect_line "$out" "  rank $r    [$r]     [6]" "allreduce"; done
# AllGather of one element each: [0 | 1 | 2 | 3] everywhere.
out=$("$ccsim" explain --op allgather --algo ring --ranks 4 --size 16 --show-data)
expect_line "$out" "  rank 2    [- | - | 2 | -]  [0 | 1 | 2 | 3]" "allgather"
# ReduceScatter of [0 1 2 3] on every rank: rank i gets 4i (0, 4, 8, 12) in its own block.
out=$("$ccsim" explain --op reducescatter --algo ring --ranks 4 --size 16 --values index --show-data)
expect_line "$out" "  rank 3    [0 | 1 | 2 | 3]  [. | . | . | 12]" "reducescatter"
expect_line "$out" "  rank 1    [0 | 1 | 2 | 3]  [. | 4 | . | .]" "reducescatter"
# AllToAll, rank r sends r to everyone: every rank receives [0 1 2 3] (block i from rank i).
out=$("$ccsim" explain --op alltoall --algo bruck --ranks 4 --size 16 --show-data)
expect_line "$out" "  rank 2    [2 | 2 | 2 | 2 | - | - | - | -]  [. | . | . | . | 0 | 1 | 2 | 3]" "alltoall"
# Broadcast from rank 0 of [0]: 0 everywhere; ranks without input show '-' before.
out=$("$ccsim" explain --op broadcast --algo binomial --ranks 4 --size 4 --show-data)
expect_line "$out" "  rank 3    [-]     [0]" "broadcast"
# Scan (inclusive), rank r holds r: 0, 1, 3, 6 ... 28 on 8 ranks; max gives r.
out=$("$ccsim" explain --op scan --ranks 8 --size 4 --show-data)
expect_line "$out" "  rank 7    [7]     [28]" "scan"
out=$("$ccsim" explain --op scan --algo linear --ranks 5 --size 4 --redop max --show-data)
expect_line "$out" "  rank 4    [4]     [4]" "scan max"
out=$("$ccsim" explain --op barrier --ranks 13 --show-data)
printf '%s' "$out" | grep -q "every rank hears" || fail "barrier: $out"
# Refusals: one line, exit 2.
refuse() {
  err=$("$ccsim" "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "'$*' exit $rc, expected 2"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'$*' printed more than one line: $err"
}
refuse explain --op allreduce --ranks 17 --size 4 --show-data
refuse explain --op allreduce --ranks 4 --size 1M --show-data
refuse explain --op allreduce --ranks 4 --size 4 --show-data --format json
refuse explain --op allreduce --ranks 4 --size 4 --show-data --values colour
refuse explain --op allreduce --ranks 4 --size 4 --show-data --redop avg
[ $fails -eq 0 ] || exit 1
echo "ok"
