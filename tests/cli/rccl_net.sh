#!/bin/bash
# RCCL (models/rccl.json) replays, by hand from its figures, with --params none (no fitted factor):
#
# 1. tuning.cc's bwRatio steers the choice only. On 2 MI300X (2 search channels x 20.0 GB/s, what the model prints),
#    ring/LL moves 8 data bytes per 16-byte line: 64 MiB takes RCCL's LL base 12 us + one xGMI LL hop 0.8 us +
#    67108864 B / (40 GB/s x 0.5) = 3355.44 us, 3368.24 us in all. Replaying the links at bwRatio's ring/LL 0.08
#    (5d108a0) gave 12 + 67108864 / (40 x 0.08) = 20984 us.
# 2. Across nodes a ring step waits for its receive, not for its own send to land: 2 nodes x 2 MI300X, ring/Simple,
#    64 B. The ring 1 0 3 2 crosses the network twice per turn, and an allreduce's 6 steps chain 3 network hops and
#    3 xGMI hops: base 17 + 3 x (3.0 + 11.9) + 3 x 3.0 = 70.70 us, where a hop inside a node is NCCL's net overhead
#    (1.0 us on an Intel host, x3 for Simple; above xGMI's 2.1) and a network hop adds NET hwLat 14.0 - xGMI 2.1 =
#    11.9 us on the NIC links. Lockstep (5d108a0) charged all 6 steps the network hop: 17 + 6 x 14.9 = 106.40 us.
# 3. Doubling the size never makes RCCL's multi-node pick much faster (5d108a0: 855 us at 1 MiB, 253 us at 2 MiB on
#    4 MI325X nodes, tree/LL then tree/Simple, 3.4x). Where the pick switches pair the replay may rank the two a little
#    differently from RCCL's tuner (its estimate is not the replay), so a step of up to 1.25x is let through.
set -u
ccsim="$1"
fail=0
. "$(dirname "$0")/replay_time.sh" # time_of CMD..., near NAME GOT WANT

got=$(time_of "$ccsim" --topo machine:gpu=mi300x,gpus=2 --model nccl --params none -b 64M -e 64M --nccl-algo ring --nccl-proto LL)
near "2 x MI300X ring/LL 64 MiB" "$got" 3368.24

got=$(time_of "$ccsim" --topo machine:gpu=mi300x,gpus=2,nodes=2,nics=2x400G,kind=roce --model nccl --params none -b 64 -e 64 \
  --nccl-algo ring --nccl-proto Simple)
near "2 nodes x 2 MI300X ring/Simple 64 B" "$got" 70.70

for topo in machine:gpu=mi325x,nodes=4,nics=8x400G,kind=roce machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce \
            machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce machine:gpu=mi325x,nodes=8,nics=8x400G,kind=roce; do
  out=$("$ccsim" --topo "$topo" --model nccl -b 1K -e 1G 2>&1) || { echo "FAIL $topo exited: $out"; fail=1; continue; }
  echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF >= 9 { if (prev != "" && $6 * 1.25 < prev) { print $1, prev, $6; bad = 1 } prev = $6 } END { exit bad }' >/dev/null ||
    { echo "FAIL $topo: the time falls more than 1.25x as the size doubles:"; echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF >= 9'; fail=1; }
done
exit $fail
