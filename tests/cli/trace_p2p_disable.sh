#!/bin/bash
# compare applies a trace's NCCL_P2P_DISABLE=1 (its launch line's -x NCCL_P2P_DISABLE=1) as NCCL's ncclGetLevel does: P2P level
# LOC, no P2P between a host's GPUs, and an NCCL_P2P_LEVEL beside it is not read; --p2p-level given wins; 0 leaves P2P on.
set -u
ccsim="$1"; src="$2"
fail=0
w="$src/tests/data/wild_traces"
topo=machine:gpu=rtxpro6000,gpus=8,intra=pcie,nodes=2,nics=8x400G,kind=roce
# the 6KD alltoall's COMMAND line: -x NCCL_P2P_DISABLE=1 (wild harvest 9)
trace="$w/rtx6000d-2node-16gpu-alltoall-1K-8G-cx8-roce-p2poff-shmoff-nccl2303-6kd.txt"
out=$("$ccsim" compare --trace "$trace" --topo "$topo" --model nccl 2>&1) || { echo "FAIL compare: $out"; fail=1; }
echo "$out" | grep -q "# trace: applied NCCL_P2P_DISABLE=1 from the trace" || { echo "FAIL: the trace's NCCL_P2P_DISABLE=1 not applied: $out"; fail=1; }
echo "$out" | grep -q "P2P level LOC" || { echo "FAIL: the graph line does not run at level LOC: $out"; fail=1; }
out=$("$ccsim" compare --trace "$trace" --topo "$topo" --model nccl --p2p-level SYS 2>&1) || { echo "FAIL compare --p2p-level: $out"; fail=1; }
echo "$out" | grep -q "NCCL_P2P_DISABLE=1; --p2p-level given wins" || { echo "FAIL: --p2p-level given does not win: $out"; fail=1; }
# the 6KD allreduce's COMMAND line: NCCL_P2P_LEVEL=PHB and no NCCL_P2P_DISABLE: the level is applied, P2P stays on
trace="$w/rtx6000d-2node-16gpu-allreduce-1K-8G-cx8-roce-shmoff-p2pphb-nccl2303-6kd.txt"
out=$("$ccsim" compare --trace "$trace" --topo "$topo" --model nccl 2>&1) || { echo "FAIL allreduce compare: $out"; fail=1; }
echo "$out" | grep -q "applied NCCL_P2P_LEVEL=PHB from the trace" || { echo "FAIL: NCCL_P2P_LEVEL=PHB not applied: $out"; fail=1; }
echo "$out" | grep -q "NCCL_P2P_DISABLE" && { echo "FAIL: a NCCL_P2P_DISABLE the trace does not state: $out"; fail=1; }
# both on one launch line, and a value other than 1 (a trace written by hand from the allreduce one)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sed 's/-x NCCL_P2P_LEVEL=PHB/-x NCCL_P2P_DISABLE=1 -x NCCL_P2P_LEVEL=PHB/' "$trace" > "$tmp/both.txt"
out=$("$ccsim" compare --trace "$tmp/both.txt" --topo "$topo" --model nccl 2>&1) || { echo "FAIL both: $out"; fail=1; }
echo "$out" | grep -q "NCCL_P2P_LEVEL=PHB: not read, NCCL_P2P_DISABLE=1 comes first" || { echo "FAIL both: the level was read: $out"; fail=1; }
sed 's/-x NCCL_P2P_LEVEL=PHB/-x NCCL_P2P_DISABLE=0/' "$trace" > "$tmp/zero.txt"
out=$("$ccsim" compare --trace "$tmp/zero.txt" --topo "$topo" --model nccl 2>&1) || { echo "FAIL zero: $out"; fail=1; }
echo "$out" | grep -q "applied NCCL_P2P_DISABLE" && { echo "FAIL zero: NCCL_P2P_DISABLE=0 disabled P2P: $out"; fail=1; }
# NCCL reads the value with strtol(str, NULL, 0) and disables P2P on 1 alone (ncclGetLevel, v2.29.2-1 src/graph/paths.cc):
# 2 leaves P2P on, 0x1 is 1.
sed 's/-x NCCL_P2P_LEVEL=PHB/-x NCCL_P2P_DISABLE=2/' "$trace" > "$tmp/two.txt"
out=$("$ccsim" compare --trace "$tmp/two.txt" --topo "$topo" --model nccl 2>&1) || { echo "FAIL two: $out"; fail=1; }
echo "$out" | grep -q "applied NCCL_P2P_DISABLE" && { echo "FAIL two: NCCL_P2P_DISABLE=2 disabled P2P: $out"; fail=1; }
sed 's/-x NCCL_P2P_LEVEL=PHB/-x NCCL_P2P_DISABLE=0x1/' "$trace" > "$tmp/hex.txt"
out=$("$ccsim" compare --trace "$tmp/hex.txt" --topo "$topo" --model nccl 2>&1) || { echo "FAIL hex: $out"; fail=1; }
echo "$out" | grep -q "applied NCCL_P2P_DISABLE=1 from the trace" || { echo "FAIL hex: NCCL_P2P_DISABLE=0x1 left P2P on: $out"; fail=1; }
# The main run at --p2p-level LOC (P2P off, every GPU port staged through host memory): the model's header names
# level LOC, not the default level of a drawing that has no P2P left (found by mutants5).
out=$("$ccsim" --topo machine:gpu=l40s,gpus=4,intra=pcie --model nccl --op allreduce -b 1M -e 1M --p2p-level LOC 2>&1) ||
  { echo "FAIL --p2p-level LOC run: $out"; fail=1; }
echo "$out" | grep -q "P2P level LOC (NCCL_P2P_LEVEL)" || { echo "FAIL --p2p-level LOC: header does not name level LOC: $out"; fail=1; }
echo "$out" | grep -q "NCCL's default)" && { echo "FAIL --p2p-level LOC: header names NCCL's default level: $out"; fail=1; }
exit $fail
