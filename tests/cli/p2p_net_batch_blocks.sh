#!/bin/bash
# A GPU's sends to another node share the thread blocks of their batch of rounds (NVIDIA/nccl
# src/include/channel.h ncclP2pChannelBaseForRound: 8 consecutive rounds, one base channel, v2.22.3-1 on;
# ncclChannelComputeBase's nodeDelta + step / 8 before). Worked by hand, 2 nodes x 8 B200, 8 x 400G IB, alltoall of
# 1 GiB (64 MiB to each of 16 ranks, 8 of them on the other node):
#   2.19.4 (NCCL_NCHANNELS_PER_NET_PEER 2) and 2.28.7 (max(1 NIC, nChannelsMax 2: 2 x 16 ranks <= 16 p2p channels x 4)):
#   2 channels a network peer. NCCL's round order (init.cc ncclP2pSchedule) puts the 8 remote peers in rounds 8-15,
#   one batch, so all of a GPU's remote sends run on the same 2 channels: 2 x 14 GB/s (NCCL_P2P_PER_CHANNEL_NET_BW,
#   paths.cc) = 28 GB/s of network data a GPU. Half the bytes leave the node: algbw <= 2 x 28 = 56 GB/s (main: 95.8,
#   the NIC's bound 2 x 48, each of the 8 senders' 2 channels counted at the receiver's NIC).
#   2.29.2: 4 channels a peer (ceil(50 / 14), 4 x ceil(16 / 8) <= 16): 56 GB/s a GPU, above the NIC's 48: the NIC
#   binds, algbw ~2 x 48 = 96 as before.
set -u
ccsim="$1"
fail=0
topo='machine:gpu=b200,nodes=2,nics=8x400G,kind=ib'
algbw() { "$ccsim" --topo "$topo" --model nccl --op alltoall -b 1G -e 1G --nccl-version "$1" 2>&1 | awk '$1 == 1073741824 { print $7 }'; }
for v in 2.19.4 2.28.7; do
  a=$(algbw "$v")
  awk -v a="$a" 'BEGIN { exit !(a != "" && a >= 50 && a <= 56.01) }' || { echo "FAIL $v: algbw '$a', want 50..56 (2 blocks x 14 GB/s a GPU)"; fail=1; }
done
a=$(algbw 2.29.2)
awk -v a="$a" 'BEGIN { exit !(a != "" && a >= 90 && a <= 100) }' || { echo "FAIL 2.29.2: algbw '$a', want 90..100 (the NICs bind)"; fail=1; }
exit $fail
