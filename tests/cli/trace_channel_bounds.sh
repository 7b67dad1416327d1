#!/bin/bash
# compare applies a trace's NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS and NCCL_MIN_CTAS / NCCL_MAX_CTAS to the ring/tree
# channel count as NCCL does (NVIDIA/nccl src/graph/connect.cc ncclTopoPostset, v2.17.1-1 to v2.29.2-1): first
# min(count, NCCL_MAX_NCHANNELS, maxCTAs), then copies up to max(NCCL_MIN_NCHANNELS, minCTAs), the release's MAXCHANNELS
# the most (src/include/device.h: 32 through v2.24.3, so 32 for this trace's 2.19.3; 64 from v2.25.1);
# src/init.cc sets a minCTAs above maxCTAs to maxCTAs and leaves an NCCL_MIN_CTAS at or below 0 out. The trace: one 8 GiB
# allreduce row on 8 x H200 (NCCL 2.19.3) with "-x NCCL_MIN_NCHANNELS=32" on its mpirun line, replayed as a ring
# (--nccl-algo ring, so the count shows in the row's choice column; 8 GiB is far above any per-size shrink).
set -u
ccsim="$1"; src="$2"
fail=0
trace="$src/models/holdout/h200-azure-nd-8gpu-allreduce-8G-nvls-nccl2193.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { "$ccsim" compare --trace "$1" --topo machine:gpu=h200 --model nccl --nccl-algo ring 2>&1; }
# $1: the settings on the mpirun line in place of NCCL_MIN_NCHANNELS=32; $2: the channels expected; $3: a line expected
check() {
  sed "s/-x NCCL_MIN_NCHANNELS=32/$1/" "$trace" > "$tmp/t.txt"
  local out; out=$(run "$tmp/t.txt") || { echo "FAIL compare ($1): $out"; fail=1; return; }
  echo "$out" | grep -q "^  8589934592 .* ring/[A-Za-z0-9]* ch=$2 " || { echo "FAIL ($1): expected ch=$2: $out"; fail=1; }
  [ -z "$3" ] || echo "$out" | grep -qF -- "$3" || { echo "FAIL ($1): no line '$3': $out"; fail=1; }
}
check "-x NCCL_MIN_NCHANNELS=32" 32 "# trace: applied NCCL_MIN_NCHANNELS=32 from the trace: ring/tree CUDA channels at least 32"
check "-x NCCL_MAX_NCHANNELS=4" 4 "# trace: applied NCCL_MAX_NCHANNELS=4 from the trace: ring/tree CUDA channels at most 4"
check "-x NCCL_MIN_NCHANNELS=48" 32 "ring/tree CUDA channels at least 32" # 2.19.3's MAXCHANNELS
check "-x NCCL_MIN_NCHANNELS=100" 32 ""
check "-x NCCL_MAX_NCHANNELS=4 -x NCCL_MIN_NCHANNELS=8" 8 "" # the max first, then the min: the min wins
check "-x NCCL_MAX_CTAS=4 -x NCCL_MIN_CTAS=8" 4 "NVLS / NVLS-tree CUDA channels at most 4, at least 4" # init.cc: minCTAs above maxCTAs is maxCTAs
check "-x NCCL_MAX_NRINGS=2 -x NCCL_MAX_NCHANNELS=6" 6 ""   # the legacy name yields to the new one
check "-x NCCL_MIN_NRINGS=40" 32 ""
check "-x NCCL_MAX_CTAS=0x6" 6 ""                           # read as strtoll(str, 0, 0)
check "-x NCCL_MIN_CTAS=0 -x NCCL_MAX_NCHANNELS=4" 4 "not applied: NCCL_MIN_CTAS=0 from the trace"
# The same trace as NCCL 2.25.1 (MAXCHANNELS 64): 48 copies run, 100 stop at 64.
for m in "48 48" "100 64"; do
  set -- $m
  sed -e "s/-x NCCL_MIN_NCHANNELS=32/-x NCCL_MIN_NCHANNELS=$1/" -e "s/2\.19\.3/2.25.1/g" "$trace" > "$tmp/v225.txt"
  out=$(run "$tmp/v225.txt") || { echo "FAIL compare (2.25.1, min $1): $out"; fail=1; continue; }
  echo "$out" | grep -q "^  8589934592 .* ring/[A-Za-z0-9]* ch=$2 " || { echo "FAIL (2.25.1, min $1): expected ch=$2: $out"; fail=1; }
done
# connect.cc ncclMaxNchannels / ncclMinNchannels: a max below 1 is 1, a min below 0 is 0 (no copies asked for).
check "-x NCCL_MAX_NCHANNELS=0" 1 "ring/tree CUDA channels at most 1"
sed "s/-x NCCL_MIN_NCHANNELS=32/-x NCCL_MIN_NCHANNELS=-3 -x NCCL_MAX_NCHANNELS=4/" "$trace" > "$tmp/neg.txt"
out=$(run "$tmp/neg.txt") || { echo "FAIL compare (min -3): $out"; fail=1; }
echo "$out" | grep -qx "# trace: applied NCCL_MIN_NCHANNELS=-3, NCCL_MAX_NCHANNELS=4 from the trace: ring/tree CUDA channels at most 4" ||
  { echo "FAIL (min -3): a min below 0 is no 'at least': $out"; fail=1; }
# A log's "N coll channels" already counts them: that count runs, and the setting is named as counted.
{ sed "s/-x NCCL_MIN_NCHANNELS=32/-x NCCL_MIN_NCHANNELS=48/" "$trace"
  echo "host:1:1 [0] NCCL INFO 24 coll channels, 0 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer"; } > "$tmp/log.txt"
out=$(run "$tmp/log.txt") || { echo "FAIL compare with a log: $out"; fail=1; }
echo "$out" | grep -q "^  8589934592 .* ch=24 " || { echo "FAIL: the log's 24 channels not run: $out"; fail=1; }
echo "$out" | grep -qF "the trace states NCCL_MIN_NCHANNELS=48: already in the log's 24 coll channels" || { echo "FAIL: no counted line: $out"; fail=1; }
# A value that is no number is named and left out.
sed "s/-x NCCL_MIN_NCHANNELS=32/-x NCCL_MIN_NCHANNELS=many/" "$trace" > "$tmp/bad.txt"
out=$(run "$tmp/bad.txt") || { echo "FAIL bad value: $out"; fail=1; }
echo "$out" | grep -qF "not applied: NCCL_MIN_NCHANNELS=many from the trace (not a whole number)" || { echo "FAIL: 'many' not named: $out"; fail=1; }
exit $fail
