#!/bin/bash
# Rings over equally near NICs. 2 nodes of 4 A100 whose 2 x 200G NICs both sit on the CPU's root complex
# (nic_at=cpu: GPU 0 and GPU 1 reach either NIC through the same links). NCCL's ring search gives each search
# channel a NIC and takes the channel's speed off that NIC, skipping one with less left than the speed, and
# with NCCL_CROSS_NIC off a channel leaves and enters every host through its own NIC (NVIDIA/nccl v2.18.3-1
# src/graph/search.cc ncclTopoSearchRecNet: net.bw -= bw; ncclTopoSearchRecGpu: the start NET's asic/port), so
# NCCL's 2 channels at 20 GB/s (a 200G NIC is 24 to NCCL) use one NIC each. By hand: a ring allreduce of S bytes
# on n = 8 ranks sends 2(n-1)/n x S out of each node and into it, split evenly over the rings; with the 2 rings
# on different NICs each NIC's network port carries half: 2 x 7/8 x 2^30 / 2 = 939524096 bytes each way (one
# NIC: 1879048192 on it, none on the other). One NIC on the CPU: all of it on that NIC.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL)_[A-Z0-9_]*'); do unset "$v"; done

run() {
  "$ccsim" --topo "machine:gpu=a100,gpus=4,nodes=2,nics=$1,kind=ib,nic_at=cpu" --model nccl --params none --op allreduce \
    --nccl-algo ring -b 1G -e 1G --links 2>&1
}
bytes_on() { echo "$1" | awk -v l="$2" '$2 == l { print $(NF-2); exit }'; }
out=$(run 2x200G)
echo "$out" | grep -q '^# ring 1:' || bad "2 NICs on the CPU: not 2 rings: $(echo "$out" | grep '^# ring')"
for nic in n0.xnic0 n0.xnic1 n1.xnic0 n1.xnic1; do
  for l in "$nic->fabric" "fabric->$nic"; do
    b=$(bytes_on "$out" "$l")
    [ "$b" = 939524096 ] || bad "2 NICs on the CPU: $l carries ${b:-no} bytes at 1 GiB, not 939524096 (half of 2 x 7/8 GiB)"
  done
done
one=$(run 1x200G)
b=$(bytes_on "$one" "n0.xnic0->fabric")
[ "$b" = 1879048192 ] || bad "1 NIC on the CPU: n0.xnic0->fabric carries ${b:-no} bytes at 1 GiB, not 1879048192 (2 x 7/8 GiB)"
# 8 H100s a node in pairs under 4 PCIe switches, both 400G NICs on the CPU, forced to ring: NCCL's ring search
# takes each channel's speed off every link of its NET-GPU paths (search.cc followPath), so channel 1 does not
# enter or leave through the switch uplink channel 0 fills (by hand, tests/unit/topology/cluster_test.cpp: ring 0
# enters GPU 0 under pcie_sw0 and leaves from GPU 7 under pcie_sw3, ring 1 enters GPU 2 under pcie_sw1 and leaves
# from GPU 1 under pcie_sw0). Each ring carries half of 2 x 15/16 x 2^30 into each node: 1006632960 bytes down
# cpu0 -> pcie_sw0 and cpu0 -> pcie_sw1 each (both rings down pcie_sw0 before: 2013265920 on it).
h100=$("$ccsim" --topo machine:gpu=h100,gpus=8,nodes=2,nics=2x400G,kind=ib,nic_at=cpu,sockets=1 --model nccl --params none \
  --op allreduce --nccl-algo ring -b 1G -e 1G --links 2>&1)
for l in 'n0.cpu0->n0.pcie_sw0' 'n0.cpu0->n0.pcie_sw1' 'n0.pcie_sw3->n0.cpu0' 'n0.pcie_sw0->n0.cpu0'; do
  b=$(bytes_on "$h100" "$l")
  [ "$b" = 1006632960 ] || bad "H100 pairs, 2 NICs on the CPU: $l carries ${b:-no} bytes at 1 GiB, not 1006632960 (one ring's half)"
done
exit $((fails > 0))
