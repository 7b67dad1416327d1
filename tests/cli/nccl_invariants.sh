#!/bin/bash
# Invariants of `--model nccl` sweeps (issue 14): for one algorithm and protocol, predicted busbw never
# falls when the size doubles (beyond print rounding, 0.5 %); and busbw never exceeds what the hardware
# carries. Bounds by hand: an H100 has 18 NVLink4 x 25 GB/s = 450 GB/s per direction into the switch
# plane, the most any busbw inside an HGX H100 can be (no NVLS modelled); 8 NICs of 400 Gb/s = 400 GB/s
# per node, the most a ring allreduce crossing nodes can reach (every byte leaves every node once per
# ring pass); MI300X: 7 xGMI links x 64 GB/s = 448 GB/s per GPU.
set -u
ccsim="$1"
fail=0
check() { # $1 label, $2 bound GB/s, rest: ccsim args
  local label="$1" bound="$2"; shift 2
  local out
  out=$("$ccsim" "$@" 2>&1) || { echo "FAIL $label: ccsim failed: $(echo "$out" | tail -1)"; fail=1; return; }
  echo "$out" | awk -v label="$label" -v bound="$bound" '
    /^ *[0-9]/ && NF >= 9 {
      size = $1; algbw = $7; busbw = $8; key = $9; sub(/ .*/, "", key)
      # NVLS reduces inside the switch: each GPU link then carries the data once each way, so the bound is
      # on algbw (what one GPU moves), not on busbw (which counts the ring-equivalent traffic).
      if (key ~ /^(nvls|collnet)/) { if (algbw > bound * 1.001) { printf "FAIL %s: %s B NVLS algbw %s GB/s above the hardware bound %s\n", label, size, algbw, bound; bad = 1 } }
      else if (busbw > bound * 1.001) { printf "FAIL %s: %s B busbw %s GB/s above the hardware bound %s\n", label, size, busbw, bound; bad = 1 }
      if ((key in last) && last_size[key] * 2 == size && busbw < last[key] * 0.995) {
        printf "FAIL %s: %s busbw falls %s -> %s GB/s from %s to %s B\n", label, key, last[key], busbw, last_size[key], size; bad = 1 }
      last[key] = busbw; last_size[key] = size; rows++
    }
    END { if (rows < 4) { printf "FAIL %s: only %d rows\n", label, rows; bad = 1 } exit bad }' || fail=1
}
check "hgx-h100 ring" 450 --topo hgx-h100 --model nccl --nccl-algo ring -b 1M -e 2G
check "hgx-h100 auto" 450 --topo hgx-h100 --model nccl -b 1M -e 2G
check "4-node hgx-h100 ring" 400 --topo cluster:nodes=4,node=hgx-h100,nics=8x400G --model nccl --nccl-algo ring -b 16M -e 2G
check "mi300x auto" 448 --topo machine:gpu=mi300x --model nccl -b 1M -e 1G
# NVLS-tree across 2 HGX H100 nodes: each node sends and receives the vector once through its 8 x 400G
# NICs (50 GB/s each), so algbw (the nvls bound) is at most 400 GB/s.
check "2-node hgx-h100 auto (NVLS-tree)" 400 --topo cluster:nodes=2,node=hgx-h100,nics=8x400G --model nccl -b 16M -e 4G
# SHARP in the fabric (CollNet): each node sends its vector once and receives the sum once through its
# 8 x 200G NICs (25 GB/s each), so algbw (the collnet bound, as for NVLS) is at most 200 GB/s.
check "4-node hgx-a100 with SHARP (CollNet)" 200 --topo cluster:nodes=4,node=hgx-a100,nics=8x200G,kind=ib,sharp=1 --model nccl -b 16M -e 4G
# --p2p off (NCCL_P2P_DISABLE=1): every copy through host memory; an H100 stages at most PCIe Gen5's
# host-staged 39 GB/s (models/gpus.json nop2p_bw), so no busbw may exceed it, whatever the NVLinks could do.
check "hgx-h100 4 GPUs, P2P off" 39 --topo hgx-h100 --gpus 4,5,6,7 --p2p off --model nccl -b 1M -e 1G
# AMD Instinct (RCCL tables): an MI355X has 7 xGMI links x 76.8 GB/s = 537.6 GB/s per GPU; alltoall's busbw
# (algbw x 7/8) is what one GPU sends to its peers, bounded the same way; 2 MI325X nodes with 8 x 400G
# NICs carry at most 400 GB/s of ring busbw across the node boundary.
check "mi355x auto" 537.6 --topo machine:gpu=mi355x --model nccl -b 1K -e 4G
check "mi355x ring" 537.6 --topo machine:gpu=mi355x --model nccl --nccl-algo ring -b 1K -e 4G
check "mi300x alltoall" 448 --topo machine:gpu=mi300x --model nccl --op alltoall -b 1K -e 1G
check "2-node mi325x ring" 400 --topo machine:gpu=mi325x,nodes=2,nics=8x400G,kind=roce --model nccl --nccl-algo ring -b 16M -e 8G
check "8-node mi325x ring" 400 --topo machine:gpu=mi325x,nodes=8,nics=8x400G,kind=roce --model nccl --nccl-algo ring -b 256M -e 16G
# NVLS asked for on a machine without an NVSwitch: one line naming the flag, exit 2.
for flag in "--nvls on" "--nccl-algo nvls"; do
  "$ccsim" --topo machine:gpu=mi300x --model nccl $flag -b 1M -e 1M >/dev/null 2>/tmp/nvls.$$; rc=$?
  { [ "$rc" = 2 ] && [ "$(wc -l </tmp/nvls.$$)" = 1 ] && grep -q -- "${flag%% *}" /tmp/nvls.$$; } || { echo "FAIL $flag on MI300X: rc $rc, $(cat /tmp/nvls.$$)"; fail=1; }
done
rm -f /tmp/nvls.$$
# --p2p-level (NCCL_P2P_LEVEL): staging through host memory never makes a PCIe box faster, and a level
# NCCL does not know is one line naming the flag.
bw_at() { "$ccsim" --topo "$1" --model nccl --p2p-level "$2" -b 1G -e 1G 2>&1 | awk '/^ *[0-9]/ {print $8}'; }
for box in machine:gpu=rtx4090,gpus=4,intra=pcie machine:gpu=l40s,gpus=8 machine:gpu=a100-pcie,gpus=2; do
  sys=$(bw_at "$box" SYS); pix=$(bw_at "$box" PIX); loc=$(bw_at "$box" LOC)
  awk -v s="$sys" -v p="$pix" -v l="$loc" 'BEGIN { exit !(s != "" && p != "" && l != "" && p <= s * 1.001 && l <= p * 1.001) }' ||
    { echo "FAIL --p2p-level on $box: SYS $sys, PIX $pix, LOC $loc GB/s (must not rise as the level tightens)"; fail=1; }
done
"$ccsim" --topo machine:gpu=l40s,gpus=4 --p2p-level NEAR -b 8 -e 8 >/dev/null 2>/tmp/lvl.$$; rc=$?
{ [ "$rc" = 2 ] && [ "$(wc -l </tmp/lvl.$$)" = 1 ] && grep -q -- "--p2p-level" /tmp/lvl.$$; } || { echo "FAIL --p2p-level NEAR: rc $rc, $(cat /tmp/lvl.$$)"; fail=1; }
rm -f /tmp/lvl.$$
"$ccsim" --topo hgx-h100 --p2p sideways -b 8 -e 8 >/dev/null 2>/tmp/p2p.$$; rc=$?
{ [ "$rc" = 2 ] && [ "$(wc -l </tmp/p2p.$$)" = 1 ] && grep -q -- "--p2p" /tmp/p2p.$$; } || { echo "FAIL --p2p sideways: rc $rc, $(cat /tmp/p2p.$$)"; fail=1; }
rm -f /tmp/p2p.$$
[ "$fail" = 0 ] && echo "nccl invariants: ok"
exit $fail
