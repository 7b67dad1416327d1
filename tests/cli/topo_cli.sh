#!/bin/bash
# `ccsim topo` end to end: generated files round-trip through --topo and `topo show`, and --dot is
# Graphviz with GPUs as boxes, link kinds as colours and lanes as pen width.
set -u
ccsim="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

# Torus: gen -> file -> load; the file and a regenerated one from the loaded topology agree.
"$ccsim" topo gen torus --dims 4x4x4 --bw 100GB/s --alpha 1us -o "$tmp/t.json" || fail "topo gen torus"
"$ccsim" topo show "$tmp/t.json" --max-gpus 0 >"$tmp/show.txt" || fail "topo show t.json"
grep -q "links (192)" "$tmp/show.txt" || fail "4x4x4 torus should have 192 links"
python3 - "$tmp/t.json" <<'PY' || fail "torus JSON content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["structure"] == {"kind": "torus", "dims": [4, 4, 4]}, j["structure"]
assert len(j["nodes"]) == 64 and len(j["links"]) == 192
assert all(l["bw"] == "100 GB/s" and l["latency"] == "1000000ps" for l in j["links"])
PY
"$ccsim" --topo "$tmp/t.json" -b 1M -e 1M >"$tmp/run1.txt" || fail "run on t.json"
"$ccsim" --topo "torus:dims=4x4x4,bw=100GB/s,alpha=1us" -b 1M -e 1M >"$tmp/run2.txt" || fail "run on torus spec"
diff <(grep -v '^#' "$tmp/run1.txt") <(grep -v '^#' "$tmp/run2.txt") >/dev/null || fail "file and spec torus predict differently"

# Cluster: gen -> file -> run gives the same numbers as the spec.
spec="cluster:nodes=2,node=dgx1-v100,nics=4x100G"
"$ccsim" topo gen cluster --nodes 2 --node dgx1-v100 --nics 4x100G -o "$tmp/c.json" || fail "topo gen cluster"
"$ccsim" --topo "$tmp/c.json" -b 1M -e 4M >"$tmp/c1.txt" || fail "run on c.json"
"$ccsim" --topo "$spec" -b 1M -e 4M >"$tmp/c2.txt" || fail "run on cluster spec"
diff <(grep -v '^#' "$tmp/c1.txt") <(grep -v '^#' "$tmp/c2.txt") >/dev/null || fail "file and spec cluster predict differently"

# Host-staged ports: `topo show` marks them, and a user's own file says which ports are staged whatever
# their speed: 2 GPUs on Gen4 ports drawn at 6 GB/s, staged, run an allreduce at 6 x 2/3 = 4.00 GB/s busbw
# (NCCL's SHM ring loop, sim/model/nccl/shm.hpp); unstaged and P2P, at the full 6.00.
[ "$("$ccsim" topo show "machine:gpu=a40,gpus=2,intra=pcie,p2p=off" | grep -c 'host-staged (SHM)')" -eq 2 ] ||
  fail "topo show marks the 2 staged GPU ports of a p2p=off machine"
[ "$("$ccsim" topo show "machine:gpu=a40,gpus=2,intra=pcie" | grep -c 'host-staged')" -eq 0 ] || fail "no staged port with P2P"
for staged in true false; do
  cat >"$tmp/s-$staged.json" <<EOF
{"name": "s", "gpu": "rtx4090", "nodes": [{"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"}, {"name": "cpu", "kind": "cpu"}],
 "links": [{"a": "gpu0", "b": "cpu", "type": "pcie4", "bw": "6GB/s", "latency": "5.5us", "host_staged": $staged},
           {"a": "gpu1", "b": "cpu", "type": "pcie4", "bw": "6GB/s", "latency": "5.5us", "host_staged": $staged}]}
EOF
done
bus() { "$ccsim" --topo "$1" --model nccl -b 1G -e 1G "${@:2}" | awk '/^ *[0-9]/ {print $8}'; }
[ "$(bus "$tmp/s-true.json")" = "4.00" ] || fail "staged 6 GB/s ports: allreduce busbw $(bus "$tmp/s-true.json"), want 4.00"
# Unstaged, the pair (two root ports of one CPU: PHB) is still beyond NCCL's default P2P level (PXB): SHM, 4.00;
# at NCCL_P2P_LEVEL=SYS it is P2P at the full 6.00.
[ "$(bus "$tmp/s-false.json")" = "4.00" ] || fail "PHB pair at NCCL's default level: allreduce busbw $(bus "$tmp/s-false.json"), want 4.00"
[ "$(bus "$tmp/s-false.json" --p2p-level SYS)" = "6.00" ] || fail "P2P 6 GB/s ports: allreduce busbw $(bus "$tmp/s-false.json" --p2p-level SYS), want 6.00"
# The plain models have no per-pair transport: --p2p-level stages every port of a GPU with a peer beyond the level
# (8 L40S on 2 sockets: every GPU has a SYS peer, so PIX stages all 8 ports) and never is a silent no-op there.
plain_bus() { "$ccsim" --topo machine:gpu=l40s,gpus=8,cpu=amd -b 1G -e 1G "$@" | awk '/^ *[0-9]/ {print $8}'; }
awk -v a="$(plain_bus --p2p-level PIX)" -v b="$(plain_bus --p2p-level SYS)" 'BEGIN {exit !(a + 0 < b + 0)}' ||
  fail "default model: --p2p-level PIX ($(plain_bus --p2p-level PIX) GB/s) must be slower than SYS ($(plain_bus --p2p-level SYS))"

# DOT.
"$ccsim" topo show dgx1-v100 --dot >"$tmp/g.dot" || fail "topo show --dot"
head -1 "$tmp/g.dot" | grep -q '^graph "dgx1-v100" {$' || fail "DOT header"
tail -1 "$tmp/g.dot" | grep -q '^}$' || fail "DOT footer"
[ "$(grep -c 'shape=box' "$tmp/g.dot")" -eq 8 ] || fail "8 GPU boxes"
[ "$(grep -c -- ' -- ' "$tmp/g.dot")" -eq 33 ] || fail "33 edges (24 NVLink pairs counted once as 16 links + 16 PCIe + 1 QPI)"
[ "$(grep -c 'color="#76b900", penwidth=2' "$tmp/g.dot")" -eq 8 ] || fail "8 doubled NVLink edges drawn green and thick"
grep -qF '"pcie_sw0" [shape=ellipse, label="pcie_sw0\npcie_switch"];' "$tmp/g.dot" || fail "switch label: name, newline, kind"
grep -q '"cpu0" -- "cpu1" \[color="#9467bd", penwidth=2' "$tmp/g.dot" || fail "QPI edge purple, 2 lanes"
if command -v dot >/dev/null; then dot -Tsvg "$tmp/g.dot" -o "$tmp/g.svg" || fail "graphviz rejects the DOT"; fi

echo "topo cli: $fails failure(s)"
[ "$fails" -eq 0 ]
