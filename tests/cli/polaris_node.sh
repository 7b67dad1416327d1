#!/bin/bash
# The shipped `polaris` node: ALCF's published device-affinity matrix of a Polaris node (4 A100 on NV4, one EPYC in
# NPS4, 2 Slingshot NICs at PHB from GPU3 and GPU1, SYS from GPU0 and GPU2), imported from
# tests/data/import/a100-sxm4-4gpu-2nic-phb-sys-numa-topo-m-alcf-polaris.txt. By hand, for 2 nodes:
#  - NCCL 2.18 keeps LL128 across nodes on sm80 only for a GPU-NIC path up to PXB (v2.18.3-1 src/graph/tuning.cc:
#    typeInter <= PATH_PXB); PHB is beyond it, so LL128 is off.
#  - a ring allreduce sends each node's 2(n-1)/n x S once out of the node, over its NICs: busbw <= the NICs' rate
#    out of a node. NCCL's rate of a 200G NIC is 24 GB/s (0.96 x 25), so one NIC caps busbw at 24 and two at 48:
#    an 1 GiB allreduce above 24 GB/s busbw uses both NICs, as NCCL_CROSS_NIC=1 channels do on Polaris.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL)_[A-Z0-9_]*'); do unset "$v"; done

"$ccsim" topo show polaris > "$tmp/show" 2>&1 || bad "polaris is not a shipped topology: $(head -c 300 "$tmp/show")"
grep -q 'mlx5_0.*mlx5_1\|NICs\|nic' "$tmp/show" || bad "polaris shows no NICs"

out=$("$ccsim" --topo cluster:nodes=2,node=polaris,nics=2x200G,kind=slingshot --model nccl --params none --op allreduce \
  -b 1G -e 1G --nccl-version 2.18 --links 2>&1)
echo "$out" | grep -q 'LL128 off (GPU-NIC path PHB' || bad "2 Polaris nodes on NCCL 2.18: LL128 not off for a PHB path: $(echo "$out" | grep 'model sees')"
bus=$(echo "$out" | awk '/^ *1073741824 / { print $8; exit }')
awk -v b="$bus" 'BEGIN { exit !(b != "" && b > 24.0 && b <= 48.0 + 1e-6) }' || bad "1 GiB busbw $bus GB/s: not in (24, 48] (both NICs, 24 GB/s each)"
for nic in n0.mlx5_0 n0.mlx5_1 n1.mlx5_0 n1.mlx5_1; do
  echo "$out" | awk -v l="$nic->fabric" '$2 == l && $NF + 0 > 90 { ok = 1 } END { exit !ok }' || bad "$nic carries no ring at 1 GiB"
done
exit $((fails > 0))
