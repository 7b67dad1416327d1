#!/bin/bash
# The NCCL-model sweep on large clusters (issue 19): allreduce, 8 B .. 16 GiB (32 sizes), `--model nccl`, on
# N nodes x 8 HGX H100 with 8 x 400G IB NICs (channels and NICs as NCCL would use them), one process per row.
# Rows: 256 and 2,048 nodes on one non-blocking switch and on a fat tree (32-port leaves, one spine node),
# each picking per size what NCCL would (tree at small sizes, NVLS-tree above); with --all also the
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
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
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
# row NODES FABRIC [OPTIONS...]
row() {
  local nodes=$1 fabric=$2 topo name tf of rc=0 t0 t1 wall cpu rss rows picked
  shift 2
  topo="cluster:nodes=$nodes,node=hgx-h100,nics=8x400G,kind=ib"
  [ "$fabric" = fattree ] && topo+=",fabric=fattree"
  name="$nodes-$fabric$(printf '%s' "$*" | tr -c 'a-z0-9' '_')"
  tf=$OUT/$name.time of=$OUT/$name.out
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S %M" -o "$tf" timeout "$TIMEOUT" "$CCSIM" --topo "$topo" --model nccl -b 8 -e 16G -f 2 --op allreduce "$@" \
    >"$of" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  read -r cpu rss < <(tail -1 "$tf" | awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }')
  rows=$(grep -c '^ *[0-9]' "$of" || true)
  # The choice column without channel counts and notes: "tree/LL (10), nvls_tree/Simple (10)".
  picked=$(grep '^ *[0-9]' "$of" | awk '{ print $9 }' | uniq -c | awk '{ printf "%s%s (%d)", (NR > 1 ? ", " : ""), $2, $1 }')
  echo "| $nodes x 8 | $fabric | ${*:--} | $rows | $picked | $wall | $cpu | $rss | $rc |"
}
row 256 switch
row 2048 switch
row 256 fattree
row 2048 fattree
if [ $ALL = 1 ]; then
  row 32 switch --nvls off
  row 256 switch --nvls off
fi
