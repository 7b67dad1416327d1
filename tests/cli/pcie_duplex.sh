#!/bin/bash
# machine:...,pcie_duplex=: every GPU's PCIe port carries at most that much both directions together
# (topology::Link::duplex). Hand values on 2 RTX PRO 6000 on root ports (NCCL's graph: 2 search channels x
# 24 GB/s = 48 GB/s per direction, below the Gen5 port's 63), 4 GiB, --model nccl:
#  - no budget: sendrecv 48 GB/s busbw (the channels' rate);
#  - pcie_duplex=60GB/s: sendrecv, all_reduce, reduce_scatter, all_gather and alltoall move both ways over each
#    port at once: 60 / 2 = 30 GB/s busbw (2 ranks: busbw is the rate each way);
#  - broadcast on 2 GPUs moves one way: min(60, 48) = 48, unchanged; with pcie_duplex=40GB/s min(40, 48) = 40;
#  - broadcast on 4 GPUs (a chain whose middle GPUs receive and send at once): 60 / 2 = 30;
#  - gather and scatter on 2 GPUs: the one peer sends to the root (gather) or the root to it (scatter), one way over
#    each port: min(60, 48) = 48, as broadcast;
#  - a 2-node cluster of that machine keeps the budget (all_reduce 30, the ports below the 2 x 400G NICs' share);
#  - bad values: one line naming pcie_duplex, exit 2.
set -u
ccsim="$1"
fail=0
M='machine:gpu=rtxpro6000,gpus=2,intra=pcie,pcie_switch=off,sockets=1,cpu=amd'
busbw() { "$ccsim" --topo "$1" --model nccl --op "$2" -b 4G -e 4G 2>&1 | awk '$1 == 4294967296 { print $8; exit }'; }
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { if (a == "") exit 1; d = a - b; if (d < 0) d = -d; exit !(d <= tol * b) }'; }
check() { # topo op hand
  local got; got=$(busbw "$1" "$2")
  within "$got" "$3" 0.005 || { echo "FAIL $2 on $1: busbw $got, hand $3"; fail=1; }
}
check "$M" sendrecv 48
for op in sendrecv allreduce reducescatter allgather alltoall; do check "$M,pcie_duplex=60GB/s" $op 30; done
check "$M,pcie_duplex=60GB/s" broadcast 48
check "$M,pcie_duplex=40GB/s" broadcast 40
check "$M,pcie_duplex=60GB/s" gather 48
check "$M,pcie_duplex=60GB/s" scatter 48
check 'machine:gpu=rtxpro6000,gpus=4,intra=pcie,sockets=1,cpu=amd,pcie_duplex=60GB/s' broadcast 30
check 'machine:gpu=rtxpro6000,gpus=2,intra=pcie,nodes=2,nics=2x400G,kind=ib,pcie_duplex=60GB/s' allreduce 30
for bad in abc 0GB/s -5GB/s; do
  err=$("$ccsim" --topo "$M,pcie_duplex=$bad" --model nccl --op sendrecv -b 1M -e 1M 2>&1 >/dev/null); rc=$?
  [ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q pcie_duplex ||
    { echo "FAIL pcie_duplex=$bad: rc $rc: $err"; fail=1; }
done
# A topology file says it per link ("duplex"): the same pair as a file gives the same 30 GB/s; 0 is refused.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
link() { echo "{\"a\": \"$1\", \"b\": \"cpu0\", \"type\": \"pcie5\", \"bw\": \"63GB/s\", \"latency\": \"1us\", \"duplex\": \"$2\"}"; }
cat > "$tmp/pair.json" <<JSON
{"name": "pair", "gpu": "rtxpro6000", "cpu": "amd",
 "nodes": [{"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"}, {"name": "cpu0", "kind": "cpu"}],
 "links": [$(link gpu0 60GB/s), $(link gpu1 60GB/s)]}
JSON
check "$tmp/pair.json" sendrecv 30
sed 's/"duplex": "60GB\/s"/"duplex": "0GB\/s"/' "$tmp/pair.json" > "$tmp/bad.json"
err=$("$ccsim" --topo "$tmp/bad.json" --model nccl --op sendrecv -b 1M -e 1M 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q 'duplex' || { echo "FAIL file duplex 0: rc $rc: $err"; fail=1; }
# `ccsim topo show` says the budget on each GPU port (2 ports, 75 GB/s).
show=$("$ccsim" topo show "$M,pcie_duplex=75GB/s" 2>&1)
[ "$(echo "$show" | grep -c 'both ways together 75 GB/s')" = 2 ] || { echo "FAIL topo show: $show"; fail=1; }
exit $fail
