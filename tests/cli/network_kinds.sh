#!/bin/bash
# Network kinds (models/nccl.json net_kinds): what a NIC of each kind delivers to NCCL's transfers, worked by hand.
# Two nodes of one H100 each, one 100G NIC per node, the bare model (--params none), an 8 GiB allreduce:
# with 2 ranks every byte of the vector leaves each GPU once through its NIC (2 (p-1)/p = 1), so busbw =
# algbw = the NIC's delivered rate (the H100's PCIe Gen5 path, 48 GB/s, does not bind; latency is < 0.1 %):
#   ib:   12.5 GB/s x 0.96 = 12.0: NCCL's search speed for a 100G NIC (12; the maintainers' "12 GB/s for 100G NICs")
#   roce: 12.0 x (4096 + 26) / (4096 + 82) (RoCEv2's 82 B of framing per 4096 B packet, InfiniBand's 26) = 11.84
# EFA's hop (aws-ofi-nccl's tuner: 20 us network latency + 3 us completion) replaces NCCL's NET hwLat: an
# 8 B allreduce on 2 ranks is a ring of 2 steps, each crossing the network once, and NCCL's ring/LL NET hop
# is 2.7 us, so EFA adds 2 x (23 - 2.7) = 40.6 us to the time over InfiniBand's.
# An unknown kind is refused with one line and exit 2.
set -u
ccsim="$1"
fail=0
row() { # $1 size, rest: ccsim args -> "time busbw" of the row of that size
  local size="$1"; shift
  "$ccsim" "$@" --model nccl --params none -b "$size" -e "$size" 2>&1 | awk -v s="$size" '/^ *[0-9]/ && NF >= 9 { print $6, $8; exit }'
}
near() { # $1 label, $2 got, $3 want, $4 tolerance (absolute)
  awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(g != "" && g - w <= t && w - g <= t) }' ||
    { echo "FAIL $1: got '$2', expected $3 +- $4"; fail=1; }
}
two="machine:gpu=h100,gpus=1,nodes=2,nics=1x100G"
read -r _ ib_bus <<<"$(row 8589934592 --topo "$two,kind=ib")"
read -r _ roce_bus <<<"$(row 8589934592 --topo "$two,kind=roce")"
near "ib busbw (12.5 x 0.96)" "$ib_bus" 12.00 0.06
near "roce busbw (12.0 x 4122/4178)" "$roce_bus" 11.84 0.06
read -r ib_t _ <<<"$(row 8 --topo "$two,kind=ib")"
read -r efa_t _ <<<"$(row 8 --topo "$two,kind=efa")"
near "efa 8 B time over ib's (2 x (23 - 2.7) us)" "$(awk -v a="$efa_t" -v b="$ib_t" 'BEGIN { if (a != "" && b != "") print a - b }')" 40.6 1.0

# NVLS-tree across 2 HGX H100 nodes: EFA's hop replaces NVLS-tree's own network latency (nccl.json nvls.tree
# net_latency_us 20.9, not the Ring/Tree hwLat rows) on 2 log2(2) = 2 hops: 2 x (23 - 20.9) = 4.2 us, plus once
# the RDMA protocol's rendezvous hop (nccl.json efa rdma_eager_max_bytes: a channel's share of 8 GiB is far above
# 8192 B, so the first write waits the receiver's control message): 4.2 + 23 = 27.2 us. The 8 B case above stays
# eager (a message of 16 B on the wire).
hgx="machine:gpu=h100,nodes=2,nics=8x400G"
read -r ib_t _ <<<"$(row 8589934592 --topo "$hgx,kind=ib")"
read -r efa_t _ <<<"$(row 8589934592 --topo "$hgx,kind=efa")"
near "efa NVLS-tree 8 GiB time over ib's (2 x (23 - 20.9) + 23 us)" "$(awk -v a="$efa_t" -v b="$ib_t" 'BEGIN { if (a != "" && b != "") print a - b }')" 27.2 0.05

# A fabric sold under its own name predicts as the link type it runs on (topologies/README.md): Spectrum-X is RoCE
# (11.84 GB/s above); Google's gIB is a link type of its own at RoCE's framing (11.84); GPUDirect-TCPXO carries TCP
# at Google's 8244 B MTU: 8192 B of payload per 8282 B on the wire against InfiniBand's 4096 per 4122,
# 12.0 x 8244 / 8282 = 11.945 (models/README.md "Google's GPU networks").
read -r _ gib_bus <<<"$(row 8589934592 --topo "$two,kind=gib")"
read -r _ spx_bus <<<"$(row 8589934592 --topo "$two,kind=Spectrum-X")"
read -r _ tcpxo_bus <<<"$(row 8589934592 --topo "$two,kind=TCPXO")"
near "gib busbw (roce's)" "$gib_bus" 11.84 0.06
near "spectrum-x busbw (roce's)" "$spx_bus" 11.84 0.06
near "tcpxo busbw (12.0 x 8244/8282)" "$tcpxo_bus" 11.945 0.01

out=$("$ccsim" --topo "$two,kind=bogus" --model nccl -b 1M -e 1M 2>&1); rc=$?
[ "$rc" = 2 ] || { echo "FAIL kind=bogus: exit $rc, expected 2: $out"; fail=1; }
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "FAIL kind=bogus: more than one line: $out"; fail=1; }
case "$out" in *bogus*) ;; *) echo "FAIL kind=bogus: '$out' does not name the kind"; fail=1 ;; esac
# instance= (models/README.md "EFA by instance type"): a type aws-ofi-nccl's platform table does not hold, an
# instance on another fabric and an empty one are each refused with one line naming the word, exit 2.
for spec in "$two,instance=c5n.18xlarge" "$two,kind=ib,instance=p5.48xlarge" "$two,instance="; do
  out=$("$ccsim" --topo "$spec" --model nccl -b 1M -e 1M 2>&1); rc=$?
  [ "$rc" = 2 ] || { echo "FAIL $spec: exit $rc, expected 2: $out"; fail=1; }
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "FAIL $spec: more than one line: $out"; fail=1; }
  case "$out" in *instance*) ;; *) echo "FAIL $spec: '$out' does not name instance"; fail=1 ;; esac
done
# A named instance runs its entry. SENDRECV charges EFA's 23 us per operation as the hop (not the latency the
# plugin reports to NCCL's tuner), twice where the table says GDR (the receiver's flush). On 2 x 1 GPU at 8 B
# (ring/Simple: the ring crosses the network twice, RDMA eager at 8 B): g7e.8xlarge (SENDRECV, no GDR, 35 us
# reported) equals g7e.48xlarge (RDMA, 23); an A100 on p4de.24xlarge (SENDRECV with GDR, 75 reported) is
# 2 x (46 - 23) = 46 us above the same GPU on aws-ofi-nccl's p-series entry (RDMA; `instance=p5`: p5.48xlarge itself
# now names its H100s, and an A100 on it is refused as an A100 on a3-megagpu-8g is).
g7e="machine:gpu=rtxpro6000,gpus=1,nodes=2,nics=1x100G"
read -r s_t _ <<<"$(row 8 --topo "$g7e,instance=g7e.8xlarge" --nccl-algo ring --nccl-proto simple)"
read -r r_t _ <<<"$(row 8 --topo "$g7e,instance=g7e.48xlarge" --nccl-algo ring --nccl-proto simple)"
near "g7e.8xlarge 8 B time over g7e.48xlarge's (2 x (23 - 23) us)" "$(awk -v a="$s_t" -v b="$r_t" 'BEGIN { if (a != "" && b != "") print a - b }')" 0.0 0.05
a1="machine:gpu=a100,gpus=1,nodes=2,nics=1x100G"
read -r s_t _ <<<"$(row 8 --topo "$a1,instance=p4de.24xlarge" --nccl-algo ring --nccl-proto simple)"
read -r r_t _ <<<"$(row 8 --topo "$a1,instance=p5" --nccl-algo ring --nccl-proto simple)"
near "p4de.24xlarge 8 B time over the p-series entry's (2 x (2 x 23 - 23) us)" "$(awk -v a="$s_t" -v b="$r_t" 'BEGIN { if (a != "" && b != "") print a - b }')" 46.0 0.05
[ "$fail" = 0 ] && echo "network kinds: ok"
exit "$fail"
