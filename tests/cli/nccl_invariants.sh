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
      if (key ~ /^nvls/) { if (algbw > bound * 1.001) { printf "FAIL %s: %s B NVLS algbw %s GB/s above the hardware bound %s\n", label, size, algbw, bound; bad = 1 } }
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
# --p2p off (NCCL_P2P_DISABLE=1): every copy through host memory; an H100 stages at most PCIe Gen5's
# host-staged 39 GB/s (models/gpus.json nop2p_bw), so no busbw may exceed it, whatever the NVLinks could do.
check "hgx-h100 4 GPUs, P2P off" 39 --topo hgx-h100 --gpus 4,5,6,7 --p2p off --model nccl -b 1M -e 1G
"$ccsim" --topo hgx-h100 --p2p sideways -b 8 -e 8 >/dev/null 2>/tmp/p2p.$$; rc=$?
{ [ "$rc" = 2 ] && [ "$(wc -l </tmp/p2p.$$)" = 1 ] && grep -q -- "--p2p" /tmp/p2p.$$; } || { echo "FAIL --p2p sideways: rc $rc, $(cat /tmp/p2p.$$)"; fail=1; }
rm -f /tmp/p2p.$$
[ "$fail" = 0 ] && echo "nccl invariants: ok"
exit $fail
