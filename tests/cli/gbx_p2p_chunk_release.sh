#!/bin/bash
# The P2P network chunk on Grace-Blackwell hosts by NCCL release (NVIDIA/nccl src/init.cc computeBuffSizes):
# 128 KiB (NCCL_P2P_NET_CHUNKSIZE) through v2.28.9-1, x 2 from v2.29.2-1 on ARM with sm100 and newer. Worked by
# hand from enqueue.cc addP2pToPlan across nodes (a send splits into min(nChannelsMin, ceil(bytes / (chunk / 2)))
# channels): an alltoall of 768 KiB on 2 hosts of 4 GB200 sends 96 KiB to each of 8 ranks.
# 2.28.7: 2 channels a network peer (2 x 8 ranks <= p2pnChannels x 4), nChannelsMin 2; 64 KiB parts ->
#         min(2, ceil(96 / 64)) = 2 channels.
# 2.29.2: 4 a peer (ceil(50 / 14)), nChannelsMin 4 halved while x 8 ranks > p2pnChannels (16) -> 2; 128 KiB
#         parts -> min(2, ceil(96 / 128)) = 1 channel. The tables' release (no --nccl-version) is 2.30.7: 1.
set -u
ccsim="$1"
fail=0
topo='machine:gpu=gb200,gpus=4,nodes=2,nics=4x400G,kind=roce'

for pair in "2.28.7:p2p/Simple ch=2" "2.29.2:p2p/Simple ch=1" ":p2p/Simple ch=1"; do
  v="${pair%%:*}"; want="${pair#*:}"
  got=$("$ccsim" --topo "$topo" --model nccl --op alltoall -b 768K -e 768K ${v:+--nccl-version "$v"} 2>&1 | grep "^ *786432 ")
  echo "$got" | grep -q "$want" || { echo "FAIL release '${v:-tables}': want $want, got: $got"; fail=1; }
done
# Grace with Hopper (GH200, sm90) keeps 128 KiB in every release ("every GPU sm100 or newer"): an alltoall of 3 MiB on
# 2 hosts of 4 sends 384 KiB to each of 8 ranks, parts of at most one chunk: 1 -> 2 -> 4 channels of 96 KiB. GB200 from
# 2.29.2 takes parts of up to 256 KiB: 2 channels of 192 KiB.
for pair in "gh200:p2p/Simple ch=4" "gb200:p2p/Simple ch=2"; do
  gpu="${pair%%:*}"; want="${pair#*:}"
  got=$("$ccsim" --topo "machine:gpu=$gpu,gpus=4,nodes=2,nics=4x400G,kind=roce" --model nccl --op alltoall -b 3M -e 3M 2>&1 | grep "^ *3145728 ")
  echo "$got" | grep -q "$want" || { echo "FAIL $gpu 3 MiB: want $want, got: $got"; fail=1; }
done
exit $fail
