#!/bin/bash
# RCCL without MSCCL (--msccl off; a trace's RCCL_MSCCL_ENABLE=0): RCCL's own tuner picks every size.
#
# 1. On 8 MI355X, 1 MiB allreduce: with MSCCL (ccsim's default on AMD) MSCCL's all-pairs algorithm runs (its XML
#    allreduce-allpairs-8n-*.xml covers 1 KiB-16 MiB: "direct" in the choice column); without it RCCL's own pick,
#    which RCCL 2.26.6 built without MSCCL logged on an 8 x MI355X host as RING/SIMPLE at 1 MiB and RING/LL at
#    16 KiB (Ahalperin/amd-dev results/scale_8gpu_all_reduce nccl_debug.log, quoted in
#    tests/data/wild_traces/mi355x-8gpu-allreduce-4B-8G-mpirun-debugfile-rccl2266-amddev.txt).
# 2. A trace that sets RCCL_MSCCL_ENABLE=0 (mpirun -x, or RCCL's "set by environment" INFO line) is predicted so,
#    and says it applied it; RCCL_MSCCL_ENABLE_SINGLE_PROCESS=0 turns MSCCL off only where one process drives
#    several GPUs (msccl_lifecycle.cc mscclCommCompatible), e.g. -g 8, not -g 1.
# 3. (below, 4.) RCCL releases before 2.21 under -g N.
# 5. A bad --msccl value is one line naming the flag, exit 2.
set -u
ccsim="$1"
fail=0
tmp=$(mktemp -d /tmp/ccsim-rccl-msccl-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

expect() { # name got pattern
  case "$2" in $3) ;; *) echo "FAIL $1: got '$2', want $3"; fail=1 ;; esac
}

run=("$ccsim" --topo machine:gpu=mi355x,gpus=8 --model nccl --params none -b 1M -e 1M)
expect "8 MI355X 1 MiB, MSCCL on" "$("${run[@]}" 2>&1 | grep -c 'direct/')" "1"
expect "8 MI355X 1 MiB, --msccl off" "$("${run[@]}" --msccl off 2>&1 | grep -o 'ring/Simple' | head -1)" "ring/Simple"
expect "8 MI355X 16 KiB, --msccl off" "$("$ccsim" --topo machine:gpu=mi355x,gpus=8 --model nccl --params none -b 16K -e 16K --msccl off 2>&1 | grep -o 'ring/LL ' | head -1)" "ring/LL "

# A one-process-per-GPU rccl-tests run with MSCCL off on the launch line.
trace() { # file nGpus launch-line
  {
    echo "$3"
    echo "# nThread 1 nGpus $2 minBytes 1024 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
    echo "#"
    echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
    echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"
    echo "        1024           256     float     sum      -1    51.89    0.02    0.03      0    51.54    0.02    0.03      0"
    echo "     1048576        262144     float     sum      -1    58.20   18.02   31.53      0    58.34   17.97   31.45      0"
  } > "$1"
}
cmp=(compare --model nccl --params none --topo machine:gpu=mi355x,gpus=8 --op allreduce --ranks 8)
trace "$tmp/off.txt" 1 "mpirun -np 8 -x RCCL_MSCCL_ENABLE=0 ./all_reduce_perf -b 1K -e 1M -f 1024 -g 1"
out=$("$ccsim" "${cmp[@]}" --trace "$tmp/off.txt" 2>&1)
expect "trace RCCL_MSCCL_ENABLE=0: applied" "$(echo "$out" | grep -c 'applied RCCL_MSCCL_ENABLE=0 from the trace: --msccl off')" "1"
expect "trace RCCL_MSCCL_ENABLE=0: 1 MiB" "$(echo "$out" | awk '$1 == 1048576 { print $NF; exit }')" "ch=*"
expect "trace RCCL_MSCCL_ENABLE=0: no direct" "$(echo "$out" | grep -c 'direct/')" "0"
# A log that shows MSCCL loaded says so; --msccl off given wins over it.
trace "$tmp/on.txt" 1 "host:1:2 [0] NCCL INFO Using MSCCL files from /opt/rocm/lib/../share/rccl/msccl-algorithms"
out=$("$ccsim" "${cmp[@]}" --trace "$tmp/on.txt" 2>&1)
expect "trace MSCCL loaded: noted" "$(echo "$out" | grep -c 'Using MSCCL files (MSCCL on)$')" "1"
expect "trace MSCCL loaded: direct at 1 KiB and 1 MiB" "$(echo "$out" | grep -c 'direct/')" "2"
out=$("$ccsim" "${cmp[@]}" --trace "$tmp/on.txt" --msccl off 2>&1)
expect "trace MSCCL loaded, --msccl off given" "$(echo "$out" | grep -c 'MSCCL on); --msccl off given wins')|$(echo "$out" | grep -c 'direct/')" "1|0"

trace "$tmp/info.txt" 1 "host:1:2 [0] NCCL INFO RCCL_MSCCL_ENABLE set by environment to 0."
expect "INFO line RCCL_MSCCL_ENABLE=0" "$("$ccsim" "${cmp[@]}" --trace "$tmp/info.txt" 2>&1 | grep -c 'direct/')" "0"

trace "$tmp/sp8.txt" 8 "RCCL_MSCCL_ENABLE_SINGLE_PROCESS=0 ./all_reduce_perf -b 1K -e 1M -f 1024 -g 8"
out=$("$ccsim" "${cmp[@]}" --trace "$tmp/sp8.txt" 2>&1)
expect "single process off, -g 8: applied" "$(echo "$out" | grep -c 'applied RCCL_MSCCL_ENABLE_SINGLE_PROCESS=0')" "1"
expect "single process off, -g 8: no direct" "$(echo "$out" | grep -c 'direct/')" "0"
trace "$tmp/sp1.txt" 1 "RCCL_MSCCL_ENABLE_SINGLE_PROCESS=0 ./all_reduce_perf -b 1K -e 1M -f 1024 -g 1"
expect "single process off, -g 1: MSCCL stays" "$("$ccsim" "${cmp[@]}" --trace "$tmp/sp1.txt" 2>&1 | grep -c 'direct/')" "2"

# 4. RCCL before 2.21 runs no MSCCL where one process drives several GPUs (msccl_lifecycle.cc mscclCommCompatible up
#    to the rocm-6.2.2 tag, RCCL 2.20.5): the header's release (a ROCm package version here) and nGpus 8 say so.
#    2.21.5 (0cbce2a: single-process MSCCL on by default) and 2.20.5 under -g 1 keep MSCCL's all-pairs.
for case in "2.20.5.60201-112~20.04 8 0" "2.21.5 8 2" "2.20.5.60201-112~20.04 1 2"; do
  set -- $case
  trace "$tmp/body.txt" "$2" "./all_reduce_perf -b 1K -e 1M -f 1024 -g $2"
  { echo "# rccl version: RCCL $1 (package)"; cat "$tmp/body.txt"; } > "$tmp/rel.txt"
  expect "RCCL $1 under -g $2: rows on MSCCL" "$("$ccsim" "${cmp[@]}" --trace "$tmp/rel.txt" 2>&1 | grep -c 'direct/')" "$3"
done

err=$("$ccsim" --topo machine:gpu=mi355x,gpus=8 --model nccl -b 1M -e 1M --msccl maybe 2>&1); rc=$?
expect "--msccl maybe exit" "$rc" "2"
expect "--msccl maybe message" "$(echo "$err" | wc -l)|$(echo "$err" | grep -c -- '--msccl')" "1|1"
exit $fail
