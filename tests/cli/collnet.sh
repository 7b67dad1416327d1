#!/bin/bash
# CollNet / SHARP from the command line: a fabric marked with sharp=1 runs NCCL's CollNet; forcing it on
# a fabric without SHARP, or SHARP on a non-InfiniBand fabric, is refused with one line and exit 2; the
# CoreWeave SHARP trace is compared with CollNet on (its SHARP log lines are read as facts).
set -u
ccsim="$1"; src="$2"
fail=0
. "$(dirname "$0")/refused.sh" # refused LABEL TEXT ARGS...: one line, exit 2
refused "collnet without SHARP" "no SHARP" --topo cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib --model nccl \
  --nccl-algo collnet_direct -b 1M -e 1M
refused "collnet on without SHARP" "--collnet on" --topo cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib --model nccl \
  --collnet on -b 1M -e 1M
refused "SHARP on RoCE" "InfiniBand" --topo cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=roce,sharp=1 -b 1M -e 1M
refused "bad sharp value" "sharp 'yes'" --topo cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib,sharp=yes -b 1M -e 1M
refused "collnet allgather" "allreduce only" --topo cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib,sharp=1 --model nccl \
  --nccl-algo collnet_chain --op allgather -b 1M -e 1M
refused "unknown --collnet" "--collnet" --topo cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib,sharp=1 --model nccl \
  --collnet maybe -b 1M -e 1M

# With SHARP NCCL's pick for a large allreduce across nodes is CollNet.
out=$("$ccsim" --topo cluster:nodes=4,node=hgx-a100,nics=8x200G,kind=ib,sharp=1 --model nccl -b 1G -e 1G 2>&1) || {
  echo "FAIL sharp run: $out"; fail=1; }
echo "$out" | grep -q "collnet_" || { echo "FAIL sharp run: no collnet row: $out"; fail=1; }

# A generated topology file keeps SHARP ("sharp": "v2") and runs CollNet when read back.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$ccsim" topo gen cluster --nodes 2 --node hgx-a100 --nics 8x200G --sharp 1 -o "$tmp/sharp.json" >/dev/null 2>&1 ||
  { echo "FAIL topo gen --sharp"; fail=1; }
grep -q '"sharp": "v2"' "$tmp/sharp.json" || { echo "FAIL topo gen --sharp: no \"sharp\" field"; fail=1; }
"$ccsim" --topo "$tmp/sharp.json" --model nccl -b 1G -e 1G 2>&1 | grep -q "collnet_" || { echo "FAIL sharp file: no collnet row"; fail=1; }

trace="$src/models/traces/hgx-a100-80gb-4node-32gpu-allreduce-8B-8G-ib-sharp-coreweave-2023a.txt"
out=$("$ccsim" compare --trace "$trace" --topo cluster:nodes=4,node=hgx-a100,nics=8x200G,kind=ib,sharp=1 --model nccl 2>&1) || {
  echo "FAIL compare: $out"; fail=1; }
echo "$out" | grep -q "SHARP tree log line" || { echo "FAIL compare: the SHARP log lines were not read as a fact: $out"; fail=1; }
echo "$out" | grep -q "collnet_" || { echo "FAIL compare: no collnet row: $out"; fail=1; }
exit $fail
