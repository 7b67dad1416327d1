#!/bin/bash
# NVIDIA's ring/LL across InfiniBand nodes, by hand from models/nccl.json with --params none (no fitted factor):
# 2 nodes x 2 H100 (2x400G IB), allreduce 64 B, forced ring/LL. The ring 1 0 3 2 crosses the network twice per
# turn. A hop inside a node is NCCL's net overhead, 1.0 us on an Intel host (above NVLink's ring LL 0.6); a network
# hop adds NET ring LL 2.7 - NVLink ring LL 0.6 = 2.1 us on the NIC links, 3.1 us in all.
# 1. ring/LL over IB: a step waits for its receive (LL's flags land in the GPU's buffer, no proxy round), so an
#    allreduce's 6 steps chain 3 network hops and 3 NVLink hops: base 6.6 + 3 x 3.1 + 3 x 1.0 = 18.90 us.
#    Lockstep (6343717) charged every step the network hop: 6.6 + 6 x 3.1 = 25.20 us.
# 2. ring/Simple over IB keeps the lockstep: hops max(3.4, 3 x 1.0) = 3.4 inside, 14.0 across; 8.4 + 6 x 14.0 = 92.40 us.
# 3. ring/LL over RoCE keeps the lockstep: 6.6 + 6 x 3.1 = 25.20 us.
set -u
ccsim="$1"
fail=0
. "$(dirname "$0")/replay_time.sh" # time_of CMD..., near NAME GOT WANT
run() { time_of "$ccsim" --topo "machine:gpu=h100,gpus=2,nodes=2,nics=2x400G,kind=$1" --model nccl --params none -b 64 -e 64 \
  --nccl-algo ring --nccl-proto "$2"; }

near "2 nodes x 2 H100 IB ring/LL 64 B" "$(run ib LL)" 18.90
near "2 nodes x 2 H100 IB ring/Simple 64 B" "$(run ib Simple)" 92.40
near "2 nodes x 2 H100 RoCE ring/LL 64 B" "$(run roce LL)" 25.20
exit $fail
