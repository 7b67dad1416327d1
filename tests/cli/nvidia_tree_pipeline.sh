#!/bin/bash
# NVIDIA's tree across nodes pipelines as runTreeSplit does (builder.cpp tree_plan; models/README.md "NVIDIA's tree
# across nodes: two pipelines, a hop's latency once along the tree"): 2 nodes x 2 H100, one 400G IB NIC a node,
# allreduce forced tree/Simple, --params none (no fitted factor).
# 1. Past the fill, one more byte costs what the busiest link takes to carry it, nothing a segment: at 32 MiB the
#    bottleneck link (`--links`: each NIC-side PCIe link carries the whole vector once each way) is busy B us for
#    32 MiB, so 64 -> 128 MiB (32 -> 64 segments of 512 KiB a job) must add 2 B us, within 1 %. The shared-tick
#    lockstep added a hop latency per 512 KiB segment on top (main: 2517 us against 1621).
# 2. The segment size moves only the fill: at 128 MiB, jobs cut in 2 MiB (max_loops_simulated 4) or 512 KiB segments
#    (the shipped 64) agree within 2 % (the lockstep: 3536 against 5069 us, the finer the slower).
set -u
ccsim="$1"
fail=0
. "$(dirname "$0")/replay_time.sh" # time_of CMD...
topo='machine:gpu=h100,gpus=2,nodes=2,nics=1x400G,kind=ib'
run() { "$ccsim" --topo "$topo" --model nccl --params none --nccl-algo tree --nccl-proto Simple "$@"; }
busy=$(run -b 32M -e 32M --links 2>&1 | awk '/^# Bottleneck link:/ { for (i = 1; i < NF; ++i) if ($i == "busy") { print $(i + 1); exit } }')
t64=$(time_of run -b 64M -e 64M)
t128=$(time_of run -b 128M -e 128M)
awk -v b="$busy" -v a="$t64" -v c="$t128" 'BEGIN { w = 2 * b; d = c - a; exit !(b > 0 && d > 0.99 * w && d < 1.01 * w) }' ||
  { echo "FAIL 64 -> 128 MiB adds $t64 -> $t128 us, want 2 x $busy (the bottleneck's busy time at 32 MiB) within 1 %"; fail=1; }
tables=$(mktemp)
trap 'rm -f "$tables"' EXIT
python3 - "$(dirname "$0")/../../models/nccl.json" "$tables" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["max_loops_simulated"] = 4
json.dump(d, open(sys.argv[2], "w"))
PY
coarse=$(time_of run -b 128M -e 128M --nccl-tables "$tables")
awk -v f="$t128" -v c="$coarse" 'BEGIN { exit !(f > 0 && c > 0 && (c - f) / f < 0.02 && (f - c) / f < 0.02) }' ||
  { echo "FAIL 128 MiB in 2 MiB segments $coarse us, in 512 KiB $t128 us: want within 2 %"; fail=1; }
# 3. Over InfiniBand only: on RoCE (as on EFA and Slingshot) the tree keeps the shared-tick lockstep, a network hop's
#    latency on every tick, so 128 MiB in 512 KiB segments (64 a job) against 2 MiB (16 a job) pays at least 48 more
#    network crossings, each at least the NET hop's extra over the intra-node one (NCCL's tree/Simple hwLat, 14 - 4 us,
#    on the NIC-switch links of the view): 480 us more (the lockstep here: 5069 against 3536 us; pipelined, ~34).
topo='machine:gpu=h100,gpus=2,nodes=2,nics=1x400G,kind=roce'
fine=$(time_of run -b 128M -e 128M)
coarse=$(time_of run -b 128M -e 128M --nccl-tables "$tables")
awk -v f="$fine" -v c="$coarse" 'BEGIN { exit !(f > 0 && c > 0 && f - c >= 480) }' ||
  { echo "FAIL RoCE 128 MiB in 512 KiB segments $fine us, in 2 MiB $coarse us: want the lockstep's 480 us or more apart"; fail=1; }
exit $fail
