#!/bin/bash
# --nccl-proto as NCCL_PROTO (NCCL's parseList: LL, LL128, Simple, comma-separated, case-insensitive, a
# leading ^ excludes): every pick under Simple is Simple, ^LL128 never picks LL128, bad lists are one line
# and exit 2; compare applies the trace's own NCCL_PROTO (aws-ofi-nccl's "Adding NCCL_PROTO=simple to
# environment" INFO line) and a --nccl-proto given wins; a '#' note naming NCCL_PROTO is no fact of the run.
set -u
ccsim="$1"; src="$2"
fail=0
. "$(dirname "$0")/refused.sh" # refused LABEL TEXT ARGS...: one line, exit 2
run=(--topo hgx-a100 --model nccl -b 8 -e 1G -f 4)
refused "unknown protocol" "--nccl-proto: unknown protocol 'll256'" "${run[@]}" --nccl-proto LL256
refused "empty list" "--nccl-proto: '^' has an empty protocol name" "${run[@]}" --nccl-proto '^'
refused "all excluded" "leaves no protocol" "${run[@]}" --nccl-proto '^LL,LL128,Simple'
refused "per-collective list" "per-collective" "${run[@]}" --nccl-proto 'allreduce:simple'
refused "LL on Simple-only EFA" "--nccl-proto LL: none of LL runs here" \
  --topo cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa --model nccl -b 8 -e 8 --nccl-proto LL

out=$("$ccsim" "${run[@]}" 2>&1) || { echo "FAIL default run: $out"; fail=1; }
echo "$out" | grep -q "/LL128" || { echo "FAIL default run picks no LL128 (the checks below would prove nothing): $out"; fail=1; }
echo "$out" | grep -q "/LL " || { echo "FAIL default run picks no LL: $out"; fail=1; }

out=$("$ccsim" "${run[@]}" --nccl-proto simple 2>&1) || { echo "FAIL Simple run: $out"; fail=1; }
n=$(echo "$out" | grep -cE '^ +[0-9]+ ')
s=$(echo "$out" | grep -E '^ +[0-9]+ ' | grep -c '/Simple')
[ "$n" -gt 0 ] && [ "$n" = "$s" ] || { echo "FAIL --nccl-proto simple: $s of $n rows Simple: $out"; fail=1; }
echo "$out" | grep -q "NCCL_PROTO=simple (Simple)" || { echo "FAIL --nccl-proto simple: header does not say it: $out"; fail=1; }

out=$("$ccsim" "${run[@]}" --nccl-proto '^LL128' 2>&1) || { echo "FAIL ^LL128 run: $out"; fail=1; }
echo "$out" | grep -E '^ +[0-9]+ ' | grep -q "/LL128" && { echo "FAIL --nccl-proto ^LL128 picked LL128: $out"; fail=1; }
echo "$out" | grep -q "NCCL_PROTO=^LL128 (LL,Simple)" || { echo "FAIL ^LL128: header does not say it: $out"; fail=1; }

# compare: the RTX PRO 6000 EFA trace's aws-ofi-nccl line sets NCCL_PROTO=simple.
trace="$src/tests/data/wild_traces/rtxpro6000-g7e-2node-2gpu-allreduce-8B-1G-efa-nogdr-nccl2292-korean.txt"
topo=machine:gpu=rtxpro6000,gpus=1,nodes=2,nics=1x100G,kind=efa
out=$("$ccsim" compare --trace "$trace" --topo "$topo" --model nccl --op allreduce 2>&1) || { echo "FAIL compare: $out"; fail=1; }
echo "$out" | grep -q "# trace: applied NCCL_PROTO=simple from the trace" || { echo "FAIL compare: trace's NCCL_PROTO not applied: $out"; fail=1; }
n=$(echo "$out" | grep -cE '^ +[0-9]+ ')
s=$(echo "$out" | grep -E '^ +[0-9]+ ' | grep -c '/Simple')
[ "$n" -gt 0 ] && [ "$n" = "$s" ] || { echo "FAIL compare: $s of $n rows Simple: $out"; fail=1; }
out=$("$ccsim" compare --trace "$trace" --topo "$topo" --model nccl --op allreduce --nccl-proto LL 2>&1) || {
  echo "FAIL compare --nccl-proto LL: $out"; fail=1; }
echo "$out" | grep -q "given wins" || { echo "FAIL compare --nccl-proto LL: does not say the flag wins: $out"; fail=1; }
echo "$out" | grep -E '^ +[0-9]+ ' | grep -vq "/LL " && { echo "FAIL compare --nccl-proto LL: a row is not LL: $out"; fail=1; }

# A trace whose '#' note names another run's NCCL_PROTO=Simple: not a fact of this run.
trace="$src/tests/data/wild_traces/rtx5090-1gpu-2rank-allgather-1M-128M-3reps-socket.txt"
out=$("$ccsim" compare --trace "$trace" --topo machine:gpu=rtx5090,gpus=2 --model nccl 2>&1) || { echo "FAIL rtx5090 compare: $out"; fail=1; }
echo "$out" | grep -q "^# ccsim compare" || { echo "FAIL rtx5090 compare: no comparison: $out"; fail=1; }
echo "$out" | grep -q "NCCL_PROTO" && { echo "FAIL rtx5090 compare: a '#' note was read as NCCL_PROTO: $out"; fail=1; }
exit $fail
