#!/bin/bash
# NCCL's sameChannels rule on x86 AMD hosts at SYS by release, through the CLI's --nccl-version (mutants8): the
# search's "Try having different channels (except when going through AMD CPUs)" is in NVIDIA/nccl
# src/graph/search.cc ncclTopoCompute at v2.19.1-1 and not at v2.18.6-1. The model line says when the rule is applied;
# 2 nodes of 8 RTX PRO 6000 on 2 EPYC sockets (GPUs under both: typeIntra SYS).
set -u
ccsim="$1"; root="$2"
export CCSIM_DATA_DIR="$root"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
topo="machine:gpu=rtxpro6000,gpus=8,intra=pcie,nodes=2,nics=8x400G,kind=roce,sockets=2,cpu=amd"
rule="every channel on one GPU order"
for v in 2.18.6 2.19.1 2.30.7 none; do
  if [ $v = none ]; then args=(); else args=(--nccl-version $v); fi
  out=$("$ccsim" --topo "$topo" --model nccl --op allreduce "${args[@]}" 2>&1) || { fail "$v: exit $?: $(head -c 300 <<<"$out")"; continue; }
  line=$(grep -m1 '^# model sees:' <<<"$out")
  if [ $v = 2.18.6 ]; then
    grep -qF "$rule" <<<"$line" && fail "2.18.6 (before the rule): the model line says '$rule': $line"
  else
    grep -qF "$rule" <<<"$line" || fail "$v (the rule's releases; none = the tables' 2.30.7): no '$rule': $line"
  fi
done
[ $fails -eq 0 ] && echo "amd_same_channels_release: all checks passed"
exit $((fails > 0))
