#!/bin/bash
# compare applies a log's NCCL_NVLS_CHUNKSIZE / NCCL_NVLSTREE_MAX_CHUNKSIZE ("set by environment", aws-ofi-nccl's 512 KiB on
# p5) to the NVLS-tree chunk (NCCL's calcCollChunking starts from min(nvlsChunkSize, the tree's max) and halves it while
# nBytes < 32/16/4/1 x 128 concurrent ops x chunk on 2 x 8 H100 with 16 channels). By hand, two terms move:
# * the fill's one loop W = 16 channels x 8 heads x chunk, at W x (1/253.867 + 1/(8 heads x 50 GB/s)) (tuning.cpp
#   nvls_tree_fill_us: 8 H100's NVLS pass 476 x 16/30 GB/s; a p5 head's four 100G EFA NICs 50 GB/s): 512 KiB chunks
#   (W 64 MiB) against 128 KiB (16 MiB) add 50331.648 kB x 0.0064391 = 324.09 us at 2 GiB, 256 KiB (W 32 MiB) add
#   16777.216 x 0.0064391 = 108.03 us at 1 GiB;
# * the step handoff (nvls_tree_step_handoff_us), (loops + 2) x 3.4 us x (1 - chunk / 128 KiB), 0 at 128 KiB: 2 GiB
#   on 512 KiB is 128 MiB a channel in 4 MiB loops, 32 loops, 34 x 3.4 x -3 = -346.8 us; 1 GiB on 256 KiB, 64 MiB in
#   2 MiB loops, 34 x 3.4 x -1 = -115.6 us.
# So the log's settings move 2 GiB by 324.09 - 346.8 = -22.71 us, 1 GiB by 108.03 - 115.6 = -7.57 us, and 256 MiB
# (128 KiB either way) by nothing, over the same trace with the two lines taken out.
set -u
ccsim="$1"; src="$2"
fail=0
trace="$src/tests/data/wild_traces/h100-p5-2node-16gpu-allreduce-8B-16G-efa-infolog-midrowtags-nccl2223-eks.txt"
topo=machine:gpu=h100,nodes=2,nics=32x100G,instance=p5.48xlarge
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$("$ccsim" compare --trace "$trace" --topo "$topo" --model nccl 2>&1) || { echo "FAIL compare: $out"; fail=1; }
echo "$out" | grep -q "# trace: applied NCCL_NVLS_CHUNKSIZE=524288 from the trace" || { echo "FAIL: NCCL_NVLS_CHUNKSIZE not applied: $out"; fail=1; }
echo "$out" | grep -q "# trace: applied NCCL_NVLSTREE_MAX_CHUNKSIZE=524288 from the trace" || { echo "FAIL: NCCL_NVLSTREE_MAX_CHUNKSIZE not applied: $out"; fail=1; }
grep -v "set by environment to 524288" "$trace" > "$tmp/noenv.txt"
base=$("$ccsim" compare --trace "$tmp/noenv.txt" --topo "$topo" --model nccl 2>&1) || { echo "FAIL compare without the lines: $base"; fail=1; }
echo "$base" | grep -q "NVLS_CHUNKSIZE" && { echo "FAIL: a chunk the trace no longer states: $base"; fail=1; }
pred() { echo "$1" | awk -v s="$2" '$1 == s { print $4 }'; }
for case in "2147483648 -22.71" "1073741824 -7.57" "268435456 0"; do
  set -- $case
  a=$(pred "$out" "$1"); b=$(pred "$base" "$1")
  awk -v a="$a" -v b="$b" -v d="$2" 'BEGIN { x = a - b - d; exit !(a != "" && b != "" && x < 0.5 && x > -0.5) }' ||
    { echo "FAIL: $1 B predicted $a us with the log's chunk, $b without: expected $2 us more"; fail=1; }
done
# a value that is no size is named, not applied
sed 's/NCCL_NVLS_CHUNKSIZE set by environment to 524288/NCCL_NVLS_CHUNKSIZE set by environment to 512k/' "$trace" > "$tmp/bad.txt"
out=$("$ccsim" compare --trace "$tmp/bad.txt" --topo "$topo" --model nccl 2>&1) || { echo "FAIL bad value: $out"; fail=1; }
echo "$out" | grep -q "not applied: NCCL_NVLS_CHUNKSIZE=512k from the trace" || { echo "FAIL: 512k applied or not named: $out"; fail=1; }
# A launch line's value read as NCCL's ncclLoadParam reads it (strtoll(str, nullptr, 0), v2.22.3-1 src/misc/param.cc):
# 0x80000 is 524288 B.
{ echo "mpirun -np 16 -N 8 -x NCCL_NVLS_CHUNKSIZE=0x80000 ./all_reduce_perf -b 8 -e 16G -f 2 -g 1"; cat "$tmp/noenv.txt"; } > "$tmp/hex.txt"
out=$("$ccsim" compare --trace "$tmp/hex.txt" --topo "$topo" --model nccl 2>&1) || { echo "FAIL hex value: $out"; fail=1; }
echo "$out" | grep -q "# trace: applied NCCL_NVLS_CHUNKSIZE=524288 from the trace" || { echo "FAIL: 0x80000 not read as 524288: $out"; fail=1; }
exit $fail
