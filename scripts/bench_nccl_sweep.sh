#!/bin/bash
# The NCCL-model sweep on large clusters (issue 19): allreduce, 8 B .. 16 GiB (32 sizes), `--model nccl`, on
# N nodes x 8 HGX H100 with 8 x 400G IB NICs (channels and NICs as NCCL would use them), one process per row.
# Rows: 256 and 2,048 nodes on one non-blocking switch and on a fat tree (32-port leaves, one spine node),
# each picking per size what NCCL would (tree at small sizes, NVLS-tree above); a forced ring of 1 GiB on 1,024 H100
# nodes with 2 NICs at the CPU (a router per ring: builder.cpp ring_routers); with --all also the
# sweeps that replay ring and tree at large sizes (--nvls off) on 32 and 256 nodes. Targets: < 1 s for 256
# nodes, < 10 s for 2,048. Prints markdown; part of scripts/bench.sh (the default set), or alone:
#   scripts/bench_nccl_sweep.sh [--ccsim PATH] [--out DIR] [--all] [--timeout S]
set -euo pipefail
cd "$(dirname "$0")/.."
CCSIM=$(pwd)/build/ccsim OUT=build/bench-nccl-sweep ALL=0 TIMEOUT=600
while [ $# -gt 0 ]; do
  case $1 in
    --ccsim) CCSIM=$2; shift ;;
    --out) OUT=$2; shift ;;
    --all) ALL=1 ;;
    --timeout) TIMEOUT=$2; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "bench_nccl_sweep: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
command -v /usr/bin/time >/dev/null || { echo "bench_nccl_sweep: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
[ -x "$CCSIM" ] || { echo "bench_nccl_sweep: $CCSIM not built" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

echo "## NCCL-model sweep on HGX H100 clusters: allreduce 8 B .. 16 GiB, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "ccsim $(git rev-parse --short HEAD 2>/dev/null || echo '?'). CPU = user+sys of the process (the steadier number on shared cores)."
echo
echo "| nodes x GPUs | fabric | options | rows | algorithms picked (sizes) | wall (s) | CPU (s) | peak RSS (MiB) | rc |"
echo "|---|---|---|---|---|---|---|---|---|"
# run_row LABEL FABRIC TOPO SIZES [CCSIM OPTIONS...]: one `--model nccl --op allreduce SIZES` run on TOPO, one table row
run_row() {
  local label=$1 fabric=$2 topo=$3 sizes=$4 name tf of rc=0 t0 t1 wall cpu rss rows picked
  shift 4
  name="$(printf '%s' "$label-$fabric-$sizes$*" | tr -c 'a-z0-9' '_')"
  tf=$OUT/$name.time of=$OUT/$name.out
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S %M" -o "$tf" timeout "$TIMEOUT" "$CCSIM" --topo "$topo" --model nccl --op allreduce $sizes "$@" \
    >"$of" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  read -r cpu rss < <(tail -1 "$tf" | awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }')
  rows=$(grep -c '^ *[0-9]' "$of" || true)
  # The choice column without channel counts and notes: "tree/LL (10), nvls_tree/Simple (10)".
  picked=$(grep '^ *[0-9]' "$of" | awk '{ print $9 }' | uniq -c | awk '{ printf "%s%s (%d)", (NR > 1 ? ", " : ""), $2, $1 }')
  echo "| $label | $fabric | ${*:--} | $rows | $picked | $wall | $cpu | $rss | $rc |"
}
# row NODES FABRIC [OPTIONS...]: the sweep on NODES x HGX H100 with 8 NICs
row() {
  local nodes=$1 fabric=$2 topo
  shift 2
  topo="cluster:nodes=$nodes,node=hgx-h100,nics=8x400G,kind=ib"
  [ "$fabric" = fattree ] && topo+=",fabric=fattree"
  run_row "$nodes x 8" "$fabric" "$topo" "-b 8 -e 16G -f 2" "$@"
}
row 256 switch
row 2048 switch
row 256 fattree
row 2048 fattree
# A ring per NIC where two NICs at the CPU are equally near every GPU: each ring's own router over the drawn one
# (builder.cpp ring_routers), 1 GiB only.
run_row "1024 x 8" "switch, 2 NICs at the CPU" "machine:gpu=h100,nodes=1024,nics=2x400G,kind=ib,nic_at=cpu,sockets=1" \
  "-b 1G -e 1G" --nccl-algo ring
if [ $ALL = 1 ]; then
  row 32 switch --nvls off
  row 256 switch --nvls off
fi
