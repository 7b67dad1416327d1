#!/bin/bash
# calibrate --run: each run of a file holding several (a scaling study) is its own input, and a link's
# efficiency is identified from the run whose bottleneck it carries, never from an NVLS run (NCCL's NVLS
# figure carries its own per-architecture efficiency: both on one link would count the loss twice).
# Hand-made two-run file on GB200 (NVLink5): run 1 = a 4-GPU ring allreduce at 0.9 of NCCL's ring figure,
# 16 search channels x 45.0 GB/s = 720 GB/s busbw, plus the ring's un-overlapped last primitive (ring_local.hpp:
# per rank size/4 written and read once more at GB200's 8 TB/s) (time = 2 x 3/4 x size / (0.9 x 720 GB/s) +
# 2 x size/4 / 8000 GB/s); run 2 = an
# 8-GPU NVLS allreduce at NCCL's uncapped NVLS figure 8 x 80 x 0.74 x 7/8 x 2 = 828.8 GB/s busbw
# (time = 2 x 7/8 x size / 828.8 GB/s). Expected: eff:nvlink5 = 0.90 (latency and fill < 1 % at >= 2 GiB),
# the NVLS run alone identifies no nvlink5 efficiency, and its prediction does not move with it.
set -u
ccsim="$1"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t="$tmp/two-runs.txt"
run() { # ranks busbw-GB/s label [local-copy-GB/s]
  local n=$1 bus=$2 copy=${4:-0}
  echo "# === RUN $3"
  echo "# Collective test starting: all_reduce_perf"
  echo "# nThread 1 nGpus 1 minBytes 2147483648 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
  echo "#"
  echo "# Using devices"
  for ((r = 0; r < n; r++)); do echo "#  Rank  $r Group  0 Pid  100$r on host-$((r / 4)) device  $((r % 4)) [0000:0$r:00] NVIDIA GB200"; done
  echo "#"
  echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
  for s in 2147483648 4294967296 8589934592; do
    awk -v s=$s -v n=$n -v b=$bus -v c=$copy 'BEGIN { f = 2 * (n - 1) / n; t = f * s / (b * 1e3) + (c > 0 ? 2 * s / n / (c * 1e3) : 0); a = s / (t * 1e3);
      printf "%12.0f %12.0f float sum -1 %.1f %.2f %.2f 0 %.1f %.2f %.2f 0\n", s, s / 4, t, a, a * f, t, a, a * f }'
  done
}
{ echo "# synthetic: two runs on GB200 (tests/cli/calibrate_runs.sh)"; run 4 648 "A: 4 ranks, ring at 0.9 x 720" 8000; run 8 828.8 "B: 8 ranks, NVLS"; } > "$t"

out=$("$ccsim" calibrate --model nccl -o "$tmp/both.json" --hold launch_us,step_us --no-cross-validation \
  --trace "$t" --topo machine:gpu=gb200,gpus=4 --run 1 --trace "$t" --topo machine:gpu=gb200,gpus=8 --run 2 2>&1) ||
  { echo "FAIL calibrate both runs: $out"; fail=1; }
eff=$(echo "$out" | awk '$1 == "eff:nvlink5" { print $2, $3 }')
awk -v e="${eff% *}" 'BEGIN { exit !(e >= 0.89 && e <= 0.91) }' && [ "${eff#* }" = fitted ] ||
  { echo "FAIL eff:nvlink5 '$eff', hand 0.90 fitted: $out"; fail=1; }

out=$("$ccsim" calibrate --model nccl -o "$tmp/nvls.json" --hold launch_us,step_us --no-cross-validation \
  --trace "$t" --topo machine:gpu=gb200,gpus=8 --run 2 2>&1) || { echo "FAIL calibrate NVLS run: $out"; fail=1; }
echo "$out" | grep "eff:nvlink5" | grep -q "not the bottleneck" || { echo "FAIL the NVLS run identified nvlink5: $out"; fail=1; }

a=$("$ccsim" compare --model nccl --params none --trace "$t" --run 2 --topo machine:gpu=gb200,gpus=8 2>&1) || { echo "FAIL compare: $a"; fail=1; }
b=$("$ccsim" compare --model nccl --params "$tmp/both.json" --trace "$t" --run 2 --topo machine:gpu=gb200,gpus=8 2>&1) || { echo "FAIL compare: $b"; fail=1; }
echo "$a" | grep -q "nvls/Simple" || { echo "FAIL run 2 is not NVLS: $a"; fail=1; }
[ "$(echo "$a" | grep '^ *[0-9]' | awk '{ print $4 }')" = "$(echo "$b" | grep '^ *[0-9]' | awk '{ print $4 }')" ] ||
  { echo "FAIL the NVLS prediction moved with the link efficiency: $a / $b"; fail=1; }

for bad in "--run 3" "--run -1" "--run 1 --run 2"; do
  # shellcheck disable=SC2086
  out=$("$ccsim" calibrate --model nccl -o "$tmp/bad.json" --trace "$t" --topo machine:gpu=gb200,gpus=8 $bad 2>&1); rc=$?
  { [ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [ ! -e "$tmp/bad.json" ]; } || { echo "FAIL $bad: rc $rc: $out"; fail=1; }
done
# Without --run a file of two runs is refused as runs, with the way out (calibrate read it as one table and called
# its runs 'size sweeps'; compare and calibrate now share one reader, trace::load_trace_runs).
out=$("$ccsim" calibrate --model nccl -o "$tmp/bad.json" --trace "$t" --topo machine:gpu=gb200,gpus=8 2>&1); rc=$?
{ [ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [ ! -e "$tmp/bad.json" ] && echo "$out" | grep -q "holds 2 runs.*--run N"; } ||
  { echo "FAIL two runs without --run: rc $rc: $out"; fail=1; }
# calibrate applies the settings a trace states as compare does (cli apply_trace_env): 8 x H100 run with
# NCCL_NVLS_ENABLE=0 (NCCL's own log line) at 300 GB/s busbw. The fit must replay NCCL's ring, not NVLS, so
# eff:nvlink4 is fitted to 300 / the ring's busbw that compare predicts with --params none (the other route);
# before, calibrate modelled NVLS, which carries its own efficiency, and nvlink4 was held.
h="$tmp/nvls-off.txt"
{ echo "# synthetic: 8 x H100, NVLS off by environment (tests/cli/calibrate_runs.sh)"
  echo "node-0:1000:1000 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0."
  echo "# nThread 1 nGpus 1 minBytes 536870912 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
  echo "#"; echo "# Using devices"
  for ((r = 0; r < 8; r++)); do echo "#  Rank  $r Group  0 Pid  100$r on host-0 device  $r [0000:0$r:00] NVIDIA H100 80GB HBM3"; done
  echo "#"
  echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
  for s in 536870912 1073741824 2147483648 4294967296 8589934592 17179869184; do
    awk -v s=$s 'BEGIN { f = 2 * 7 / 8; t = f * s / (300 * 1e3); a = s / (t * 1e3);
      printf "%12.0f %12.0f float sum -1 %.1f %.2f %.2f 0 %.1f %.2f %.2f 0\n", s, s / 4, t, a, a * f, t, a, a * f }'
  done; } > "$h"
a=$("$ccsim" compare --model nccl --params none --trace "$h" --topo machine:gpu=h100 2>&1) || { echo "FAIL compare NVLS off: $a"; fail=1; }
echo "$a" | grep -q "applied NCCL_NVLS_ENABLE=0" && ! echo "$a" | grep -q "nvls/" || { echo "FAIL compare did not apply NVLS off: $a"; fail=1; }
ring=$(echo "$a" | awk '$1 == 17179869184 { print $8 }')
out=$("$ccsim" calibrate --model nccl -o "$tmp/off.json" --no-cross-validation --trace "$h" --topo machine:gpu=h100 2>&1) ||
  { echo "FAIL calibrate NVLS off: $out"; fail=1; }
eff=$(echo "$out" | awk '$1 == "eff:nvlink4" { print $2, $3 }')
awk -v e="${eff% *}" -v r="$ring" 'BEGIN { x = 300 / r; exit !(r > 0 && e >= 0.99 * x && e <= 1.01 * x) }' && [ "${eff#* }" = fitted ] ||
  { echo "FAIL eff:nvlink4 '$eff', expected 300 / $ring fitted: $out"; fail=1; }
echo "$out" | grep -q "^#   applied NCCL_NVLS_ENABLE=0 from the trace" || { echo "FAIL calibrate does not say what it applied: $out"; fail=1; }
# NCCL's "NCCL_ALGO set by environment to Ring" line is read as the run's NCCL_ALGO (tuning.cc logs it so).
sed 's/NCCL_NVLS_ENABLE set by environment to 0\./NCCL_ALGO set by environment to Tree/' "$h" > "$tmp/algo.txt"
a=$("$ccsim" compare --model nccl --params none --trace "$tmp/algo.txt" --topo machine:gpu=h100 2>&1) || { echo "FAIL compare NCCL_ALGO: $a"; fail=1; }
echo "$a" | grep -q "applied NCCL_ALGO=Tree from the trace: --nccl-algo tree" || { echo "FAIL NCCL_ALGO line not applied: $a"; fail=1; }
exit $fail
