#!/bin/bash
# compare's "why" lines name the tools and NCCL log lines of the network the machine is described with. Slingshot
# (Cassini, libfabric's cxi provider) and EFA are reached through the aws-ofi-nccl plugin, whose NCCL_DEBUG=INFO
# lines start "NET/OFI" and name the provider ("Selected provider is cxi") and the transport protocol; a Cassini
# NIC has no InfiniBand verbs, so perftest's ib_write_bw / ib_send_lat do not run on it: libfabric's fabtests
# (fi_rdm_tagged_bw, fi_rdm_tagged_pingpong: tagged messages, what the plugin's SENDRECV protocol sends) do.
# InfiniBand keeps perftest and "NET/IB" lines. One public Polaris run (8 nodes x 4 A100, 2 Slingshot NICs a node):
# its largest rows are bound by the NICs in the replay, its small rows are the latency band.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL)_[A-Z0-9_]*'); do unset "$v"; done
trace="$src/tests/data/wild_traces/a100-sxm4-40gb-polaris-8node-32gpu-allreduce-4B-1G-slingshot11-awsofi-nccl218-alcf.txt"
topo="machine:gpu=a100,gpus=4,intra=mesh,nodes=8,nics=2x200G,sockets=1,cpu=amd"
why() { "$ccsim" compare --trace "$trace" --model nccl --topo "$topo,kind=$1" --op allreduce 2>&1 | grep '^# why'; }

s=$(why slingshot)
echo "$s" | grep -q 'why (bandwidth band.*bound by .* slingshot links' || bad "slingshot: no NIC-bound bandwidth band: $s"
echo "$s" | grep -q 'fi_rdm_tagged_bw -p cxi' || bad "slingshot: bandwidth check is not libfabric's fi_rdm_tagged_bw on cxi: $s"
echo "$s" | grep -q "NET/OFI lines: 'Selected provider is cxi'" || bad "slingshot: no aws-ofi-nccl log lines named: $s"
echo "$s" | grep -q 'why (latency band.*fi_rdm_tagged_pingpong -p cxi' || bad "slingshot: latency check is not fi_rdm_tagged_pingpong: $s"
echo "$s" | grep -qE 'ib_write_bw|ib_send_lat|NET/IB' && bad "slingshot: InfiniBand tools named for a Cassini NIC: $s"

e=$(why efa)
echo "$e" | grep -q 'fi_rdm_tagged_bw -p efa' || bad "efa: bandwidth check is not fi_rdm_tagged_bw on efa: $e"
echo "$e" | grep -qE 'ib_write_bw|NET/IB' && bad "efa: InfiniBand tools named for EFA: $e"

i=$(why ib)
echo "$i" | grep -q 'ib_write_bw (perftest)' || bad "ib: perftest no longer named: $i"
echo "$i" | grep -q 'NET/IB lines' || bad "ib: NET/IB lines no longer named: $i"
echo "$i" | grep -q 'latency band.*(ib_send_lat)' || bad "ib: ib_send_lat no longer named: $i"
# Google's GPUDirect-TCPX runs TCP (device-memory receive through Google's plugin): TCP's tools, no verbs (mutation
# pass 4, scripts/MUTANTS.md: tcpx and tcpxo fell to the InfiniBand tools).
for k in tcpx tcpxo; do
  t=$(why $k)
  echo "$t" | grep -qE 'iperf3 -P 4|sockperf' || bad "$k: no TCP tool named: $t"
  echo "$t" | grep -qE 'ib_write_bw|ib_send_lat|NET/IB' && bad "$k: InfiniBand tools named for TCP: $t"
done
exit $((fails > 0))
