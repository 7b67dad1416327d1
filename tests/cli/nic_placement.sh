#!/bin/bash
# Where a machine's NICs sit (nic_at=gpu|cpu|numa) and what --model nccl makes of it across nodes: NCCL keeps
# LL128 only while the GPU-NIC path class is close enough (tuning.cc typeInter; models/README.md "LL128 across
# nodes by the GPU-NIC path"). NVIDIA/nccl issue 2441's hosts (2 x H100 NVL per host, NICs on another NUMA node
# than the GPUs) run without LL128, and the header says why. A bad nic_at is one line, exit 2.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad

. "$(dirname "$0")/refused_one_line.sh"

m='machine:gpu=h100nvl,gpus=2,nodes=2,nics=2x200G,kind=slingshot,sockets=2,cpu=amd'
refused_one_line "nic_at 'switch' is not gpu, cpu or numa" --topo "$m,nic_at=switch" -b 1M -e 1M
refused_one_line "nic_at=numa" --topo "machine:gpu=h100nvl,gpus=2,nodes=2,nics=2x200G,sockets=1,nic_at=numa" -b 1M -e 1M

sees() { "$ccsim" --topo "$1" --model nccl --op allreduce -b 1M -e 1M 2>&1 | grep -F "# model sees:"; }
grep -qF "LL128 on (GPU-NIC path PIX)" <<<"$(sees "$m")" || bad "NICs beside the GPUs: $(sees "$m")"
grep -qF "LL128 off (GPU-NIC path PHB: NCCL 2.30.7 keeps LL128 across nodes up to PXN on sm90)" <<<"$(sees "$m,nic_at=cpu")" ||
  bad "NICs on the GPU's socket: $(sees "$m,nic_at=cpu")"
grep -qF "LL128 off (GPU-NIC path SYS" <<<"$(sees "$m,nic_at=numa")" || bad "NICs on their own NUMA node: $(sees "$m,nic_at=numa")"
# The ring/LL128 the default drawing picks at 1 MB is gone from the picks of issue 2441's drawing.
out=$("$ccsim" compare --trace "$src/tests/data/wild_traces/h100nvl-2node-4gpu-allreduce-500K-1500K-linearstep-slingshot-nccl2441.txt" \
  --model nccl --topo "$m,nic_at=numa" --op allreduce 2>&1)
grep -q "LL128 off (GPU-NIC path SYS: NCCL 2.30.5" <<<"$out" || bad "compare reads the trace's 2.30.5: $(grep 'nccl graph' <<<"$out")"
grep -q "ring/LL128" <<<"$out" && bad "compare still picks ring/LL128 with the NICs on another NUMA node"

# topo gen cluster takes the placement as --nic-at (the lead, after gpunic left it); a bad value names the flag.
refused_one_line "--nic-at: 'switch' is not gpu, cpu or numa" topo gen cluster --nic-at switch
refused_one_line "--nic-at: topo gen torus does not read it" topo gen torus --dims 2x2 --nic-at cpu
"$ccsim" topo gen cluster --node hgx-a100 --nic-at numa -o "$tmp/numa.json" || bad "topo gen cluster --nic-at numa failed"
grep -q "NIC on a root port of a NUMA node without GPUs" "$tmp/numa.json" 2>/dev/null || bad "topo gen cluster --nic-at numa: the file does not say where its NICs are"
# The file and the spec it stands for are one machine: the same graph, LL128 off across nodes (A100: PXB at most).
sees_file=$("$ccsim" --topo "$tmp/numa.json" --model nccl --op allreduce -b 1G -e 1G --why 2>&1 | grep "model sees")
sees_spec=$("$ccsim" --topo "cluster:nodes=2,node=hgx-a100,nics=8x400G,kind=ib,nic_at=numa" --model nccl --op allreduce -b 1G -e 1G --why 2>&1 | grep "model sees")
grep -qF "LL128 off (GPU-NIC path SYS" <<<"$sees_file" || bad "the generated --nic-at numa cluster keeps LL128 across nodes: $sees_file"
[ "$sees_file" = "$sees_spec" ] || bad "topo gen's file and its spec differ: '$sees_file' against '$sees_spec'"

# "What if 2 more NICs": 10 NICs by 8 H100s. NCCL's ring search (search.cc ncclTopoCompute) starts at the first speed
# of sm90's speedArrayInter a 400G NIC (50 GB/s) carries, 48, one channel a NIC, and stops once channels x speed
# reaches a GPU's NVLink total, 18 links x 20.6 GB/s = 370.8: 8 x 48 = 384, so 8 channels whatever the NIC count and
# 2 NICs carry no ring (by hand). Said, and the prediction is the 8-NIC one, as NCCL's would be.
t10=$("$ccsim" all_reduce_perf --topo machine:gpu=h100,nodes=2,nics=10x400G,kind=ib -b 1G -e 1G -g 8 --procs 2)
t8=$("$ccsim" all_reduce_perf --topo machine:gpu=h100,nodes=2,nics=8x400G,kind=ib -b 1G -e 1G -g 8 --procs 2)
grep -q "^# ccsim: model sees: .*, 10 NICs a node, NCCL's ring search stops at 8 channel(s): 8 x 48.0 GB/s reach a GPU's NVLink total 370.8 GB/s (search.cc ncclTopoCompute: nChannels\*bwInter >= totalBw), so 2 NIC(s) carry no ring" <<<"$t10" ||
  bad "10 NICs by 8 H100s: the idle NICs not said: $(grep 'model sees' <<<"$t10")"
grep -q "NICs a node" <<<"$t8" && bad "8 NICs by 8 H100s said to leave NICs idle"
[ "$(grep '^ ' <<<"$t10")" = "$(grep '^ ' <<<"$t8")" ] || bad "10 NICs predict otherwise than 8"

[ "$fails" -eq 0 ] && echo "nic placement: all passed"
exit $((fails > 0))
