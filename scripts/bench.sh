#!/bin/bash
# ccsim speed and scale benchmarks, side by side with SimGrid SMPI (trace replay, the "pure alpha-beta"
# options of shared/peers/simgrid/README.md) on the same platform and algorithm, in one run.
#
#   scripts/bench.sh                 default set (~3 min idle, ~10 min on 2 busy cores): ring allreduce
#                                    64 MiB on a flat crossbar at p = 64..1024 vs SimGrid, a contended fat
#                                    tree (--model flow and fifo vs SimGrid), optional algorithms, scaling
#                                    to p = 4096, the DGX-1 sweep, the NCCL-model sweeps on 256/2,048-node clusters
#   scripts/bench.sh --big           adds SimGrid at p = 2048 (~75 s idle), ours at p = 8192 and 16384,
#                                    1M-rank bcast
#   scripts/bench.sh --no-simgrid    ours only
#   scripts/bench.sh --only-ring P   just the ring allreduce row at P ranks (e.g. 2048) beside SimGrid
#   scripts/bench.sh --only-torus    just the ring allreduce rows on 2D/3D tori beside SimGrid
#   scripts/bench.sh --only-sweep    just `ccsim sweep` on 10,000 points: 1 vs 2 threads vs 2 MPI ranks
#                                    (scripts/bench_sweep.sh; also the last section of the default set)
#   scripts/bench.sh --only-contention  just the contention rows (--model flow vs SimGrid's max-min: all-to-all,
#                                    fat-tree ring at p = 64, 256, 1024), CPU to the microsecond, --pairs N
#                                    alternating runs of the two programs per row (least CPU of each kept)
#   scripts/bench.sh --no-loggopsim  without the LogGOPSim section (scripts/bench_loggopsim.sh, run last)
#   scripts/bench.sh --only-nccl-sweep  just the NCCL-model allreduce sweeps on 256- and 2,048-node HGX H100
#                                    clusters (scripts/bench_nccl_sweep.sh; also in the default set)
#   options: --timeout S (per run, default 300; 600 with --big)  --out DIR (default build/bench)
#            --pairs N (contention rows: alternating ccsim/SimGrid runs per row, default 1)
#            --repeat N (engine runs per ccsim measurement, fastest reported; default 1)
#            --wrapped-measure (CPU and RSS as before 2026-11-25: /usr/bin/time and timeout around each program,
#            their own start-up counted; to compare against the default, which counts the program's tree only)
#   env: CCSIM (binary to measure, default build/ccsim);
#        BCAST_ALGO (default binomial), RDB_ALGO (default recursive_doubling): ccsim names of binomial broadcast and
#        recursive-doubling allreduce; rows are skipped (and say so) when this build lacks them.
#
# Prints markdown tables; also writes DIR/results.md, DIR/scaling.csv and DIR/scaling.png (matplotlib).
# Wall times are whole processes (setup included) unless marked "engine"; CPU = user+sys of the program's process
# tree to the microsecond and peak RSS, both from wait4 (scripts/cpu_run.py: no time/timeout wrapper counted);
# CPU ratios are the steadier number when other jobs share the cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

BIG=0 SIMGRID=1 LOGGOPSIM_ROWS=1 TIMEOUT="" OUT=build/bench REPEAT=1 ONLY_RING="" ONLY_TORUS=0
ONLY_CONTENTION=0 PAIRS=1 CPU_RUN_MODE=""
while [ $# -gt 0 ]; do
  case $1 in
    --big) BIG=1 ;;
    --no-simgrid) SIMGRID=0 ;;
    --no-loggopsim) LOGGOPSIM_ROWS=0 ;;
    --timeout) TIMEOUT=$2; shift ;;
    --out) OUT=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --only-ring) ONLY_RING=$2; shift ;;
    --only-torus) ONLY_TORUS=1 ;;
    --only-contention) ONLY_CONTENTION=1 ;;
    --pairs) PAIRS=$2; shift ;;
    --wrapped-measure) CPU_RUN_MODE=--wrapped ;;
    --only-sweep) exec "$(dirname "$0")/bench_sweep.sh" ;;
    --only-nccl-sweep) exec "$(dirname "$0")/bench_nccl_sweep.sh" ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$TIMEOUT" ] || { [ $BIG = 1 ] && TIMEOUT=600 || TIMEOUT=300; }
BCAST_ALGO=${BCAST_ALGO:-binomial}
RDB_ALGO=${RDB_ALGO:-recursive_doubling}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$OUT/simgrid
mkdir -p "$WORK"
RESULTS=$OUT/results.md
: >"$RESULTS"
say() { echo "$*" | tee -a "$RESULTS"; }

command -v setsid >/dev/null || { echo "bench: setsid missing (apt-get install util-linux)" >&2; exit 2; }
CCSIM=${CCSIM:-$ROOT/build/ccsim}
[ -n "${CCSIM_DATA_DIR:-}" ] || export CCSIM_DATA_DIR=$ROOT # a binary copied elsewhere (CCSIM=) still finds topologies/
if [ ! -x "$CCSIM" ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C build ccsim
fi

# ---------------------------------------------------------------- SimGrid (Debian libsimgrid-dev)
SG=0
if [ $SIMGRID = 1 ]; then
  if ! command -v smpirun >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bench: installing libsimgrid-dev from Debian ..." >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsimgrid-dev) >"$WORK/apt.log" 2>&1 || true
  fi
  if command -v smpirun >/dev/null 2>&1; then
    SG=1
    SG_VERSION=$(dpkg-query -W -f='${Version}' libsimgrid-dev 2>/dev/null || echo unknown)
  else
    say "SimGrid: skipped (smpirun not found and libsimgrid-dev could not be installed: needs root and Debian apt)"
  fi
else
  say "SimGrid: skipped (--no-simgrid)"
fi

BW=1e10 LAT=5e-7 # SimGrid per-link bandwidth (B/s) and latency (s); ours: crossbar alpha = 2*LAT end to end
OUR_BW=10GB/s

# Options that reduce SMPI to T = sum(latency) + (bytes+16)/min(bw) with max-min sharing (see the peer README).
sg_opts() {
  printf '%s\n' --cfg=network/model:CM02 --cfg=network/latency-factor:1 --cfg=network/bandwidth-factor:1 \
    --cfg=network/weight-S:0 --cfg=network/TCP-gamma:1e30 --cfg=network/crosstraffic:0 \
    --cfg=network/loopback-bw:1e15 --cfg=network/loopback-lat:0 --cfg=smpi/simulate-computation:no \
    --cfg=smpi/host-speed:1000Gf --cfg=smpi/wtime:0 --cfg=smpi/init:0 --cfg=smpi/os:0:0:0:0:0 \
    --cfg=smpi/or:0:0:0:0:0 --cfg=smpi/ois:0:0:0:0:0 --cfg=smpi/send-is-detached-thresh:0 \
    --cfg=smpi/shared-malloc:local --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning \
    --log=smpi_coll.thres:warning --log=smpi_replay.thres:info --log=smpi_replay.fmt:SIMCLOCK=%.12r%e%m%n
}

# sg_platform KIND P [FT] -> xml path. flat: private full-duplex link per host to a non-blocking switch.
# fattree: SimGrid FAT_TREE cluster, every link BW/LAT. torus: SimGrid TORUS cluster with extents FT
# ("8,8" or "4,4,4"), every neighbour link BW/LAT, dimension-order routes.
sg_platform() {
  local kind=$1 p=$2 ft=${3:-} xml topo=""
  xml=$WORK/$kind-$p${ft:+-$(echo "$ft" | tr ';,' '_.')}.xml
  [ "$kind" = fattree ] && topo="topology=\"FAT_TREE\" topo_parameters=\"$ft\""
  [ "$kind" = torus ] && topo="topology=\"TORUS\" topo_parameters=\"$ft\""
  cat >"$xml" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<cluster id="c" $topo prefix="node-" suffix="" radical="0-$((p - 1))" speed="1Gf" bw="${BW}Bps" lat="${LAT}s" sharing_policy="SPLITDUPLEX" loopback_bw="1e15Bps" loopback_lat="0s"/>
</platform>
EOF
  echo "$xml"
}

# measure OUTFILE CMD... : runs CMD (ccsim, or SimGrid's smpirun with the smpimain it starts) through
# scripts/cpu_run.py: CPU (user+sys, to the microsecond) and peak RSS of the program's own process tree, from
# wait4, with no time/timeout wrapper process counted; a timer kills the tree after TIMEOUT. Sets WALL (s), CPU
# (s), RSS (MiB), RC (124 on timeout). --wrapped-measure: the measure before 2026-11-25 (/usr/bin/time and
# timeout around the program, their own start-up counted), to compare the two.
measure() {
  local of=$1
  shift
  read -r CPU RSS RC WALL < <(python3 scripts/cpu_run.py $CPU_RUN_MODE "$TIMEOUT" "$of" "$@")
}

# sg_run KIND P OP BYTES SMPI_ALG HOSTORDER [FT]: SMPI trace replay; sets SG_T (s), SG_WALL, SG_RSS, SG_RC.
sg_run() {
  local kind=$1 p=$2 op=$3 bytes=$4 alg=$5 order=$6 ft=${7:-} xml hosts trace idx act opts=()
  xml=$(sg_platform "$kind" "$p" "$ft")
  hosts=$WORK/hosts-$p-$order
  python3 - "$p" "$order" "${ft}" >"$hosts" <<'EOF'
import sys
p, order, ft = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if order == "stride":   # rank r on leaf r mod L: every ring neighbour is on another leaf switch
    k, L = (int(x) for x in ft.split(";")[1].split(","))
    hosts = [(r % L) * k + r // L for r in range(p)]
else:
    hosts = list(range(p))
print("\n".join(f"node-{h}" for h in hosts))
EOF
  case $op in
    allreduce) act="allreduce $bytes 0" ;;
    bcast) act="bcast $bytes 0" ;;
    alltoall) act="alltoall $((bytes / p)) $((bytes / p))" ;;
  esac
  trace=$WORK/$op-$p-$bytes.txt
  idx=$WORK/$op-$p-$bytes.idx
  awk -v p="$p" -v act="$act" 'BEGIN { for (r = 0; r < p; r++) print r " init";
    for (r = 0; r < p; r++) print r " " act; for (r = 0; r < p; r++) print r " finalize" }' >"$trace"
  echo "$trace" >"$idx"
  mapfile -t opts < <(sg_opts)
  measure "$WORK/sg.out" smpirun -np "$p" -platform "$xml" -hostfile "$hosts" -no-privatize "${opts[@]}" \
    "--cfg=smpi/$op:$alg" -replay "$idx"
  SG_RC=$RC SG_WALL=$WALL SG_RSS=$RSS SG_CPU=$CPU
  SG_T=$(sed -n 's/^SIMCLOCK=\([0-9.e+-]*\) Simulation time.*/\1/p' "$WORK/sg.out" | tail -1)
  if [ -z "$SG_T" ]; then
    SG_T=nan
    [ "$SG_RC" = 124 ] && SG_T=timeout
  fi
}

# our_run TOPO OP ALGO BYTES MODEL [GPUS]: sets OUR_* from `ccsim bench` (+ measure for the process). Always
# --semantics mpi (blocking sendrecv, rendezvous): what SMPI computes, and what the scaling rows measured before.
our_run() {
  local topo=$1 op=$2 algo=$3 bytes=$4 model=$5 gpus=${6:-} extra=()
  [ -n "$gpus" ] && extra=(--gpus "$gpus")
  measure "$WORK/ours.out" "$CCSIM" bench --topo "$topo" --op "$op" --algo "$algo" -n "$bytes" --model "$model" --semantics mpi \
    --header 16 --repeat "$REPEAT" "${extra[@]}"
  OUR_RC=$RC OUR_WALL=$WALL OUR_RSS=$RSS OUR_CPU=$CPU
  OUR_LINE=$(grep '^bench ' "$WORK/ours.out" || true)
  if [ -z "$OUR_LINE" ]; then OUR_ERR=$(tail -1 "$WORK/ours.out"); return 1; fi
  kv() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$OUR_LINE"; }
  OUR_T=$(kv sim_time_s) OUR_RUN=$(kv run_s) OUR_EVS=$(kv events_per_s) OUR_EV=$(kv events)
}

row() { # workload p model -> one markdown row from OUR_* and SG_*
  python3 - "$@" "$OUR_T" "$OUR_WALL" "$OUR_RUN" "$OUR_EVS" "$OUR_RSS" "${SG_T:-skip}" "${SG_WALL:-}" "${SG_RSS:-}" "$OUR_CPU" "${SG_CPU:-}" <<'EOF'
import sys
w, p, model, ot, ow, orun, evs, orss, st, sw, srss, oc, sc = sys.argv[1:]
def f(x, fmt):
    try: return fmt.format(float(x))
    except ValueError: return x
agree = ratio = cratio = "-"
try:
    agree = f"{abs(float(ot) - float(st)) / float(st):.1e}"
    ratio = f"{float(sw) / float(ow):.0f}x"
    cratio = f"{float(sc) / max(float(oc), 0.01):.0f}x"
except (ValueError, ZeroDivisionError):
    pass
print(f"| {w} | {p} | {model} | {f(ot, '{:.6e}')} | {f(st, '{:.6e}')} | {agree} | {f(ow, '{:.2f}')} | "
      f"{f(orun, '{:.3f}')} | {f(evs, '{:.3g}')} | {f(orss, '{:.0f}')} | {f(sw, '{:.2f}') if sw else '-'} | "
      f"{f(srss, '{:.0f}') if srss else '-'} | {ratio} | {cratio} |")
EOF
}

header() {
  say ""
  say "| workload | p | model | ccsim sim time (s) | SimGrid sim time (s) | rel. diff | ccsim wall (s) | ccsim engine (s) | events/s | ccsim RSS (MiB) | SimGrid wall (s) | SimGrid RSS (MiB) | SimGrid/ccsim wall | SimGrid/ccsim CPU |"
  say "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

compare() { # KIND P OP(ours) ALGO SMPIOP SMPIALG BYTES MODEL [FT ORDER TOPO GPUS]
  local kind=$1 p=$2 op=$3 algo=$4 sop=$5 salg=$6 bytes=$7 model=$8 ft=${9:-} order=${10:-id} topo=${11:-} gpus=${12:-}
  [ -n "$topo" ] || topo="crossbar:ranks=$p,bw=$OUR_BW,alpha=1us"
  if ! our_run "$topo" "$op" "$algo" "$bytes" "$model" "$gpus"; then
    say "| $op $algo ($kind) | $p | $model | ${OUR_ERR} | | | | | | | | | | |"
    return
  fi
  SG_T=skip SG_WALL="" SG_RSS=""
  if [ $SG = 1 ] && [ "$salg" != - ]; then sg_run "$kind" "$p" "$sop" "$bytes" "$salg" "$order" "$ft"; fi
  row "$op $algo ($kind${ft:+ $ft})" "$p" "$model" | tee -a "$RESULTS"
}

say "# ccsim benchmark run $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
say ""
say "ccsim $(git rev-parse --short HEAD 2>/dev/null || echo '?'); SimGrid: $([ $SG = 1 ] && echo "libsimgrid-dev $SG_VERSION, SMPI trace replay, pure alpha-beta options, timeout ${TIMEOUT}s" || echo skipped)."
say "Platform: links of 10 GB/s per direction, 0.5 us each (flat crossbar: alpha = 1 us end to end). ccsim adds SMPI's"
say "16-byte envelope to every message (--header 16), so both predict the same time. rel. diff = |ccsim - SimGrid| / SimGrid."

# The contention rows: --model flow against SimGrid's max-min sharing (and fifo for contrast). Each row runs
# the two programs alternately PAIRS times and keeps the least CPU time (user+sys, to the microsecond) of each.
ctable() {
  say ""
  say "| workload | p | model | ccsim sim time (s) | SimGrid sim time (s) | rel. diff | ccsim CPU (s) | SimGrid CPU (s) | SimGrid/ccsim CPU | ccsim wall (s) | SimGrid wall (s) | ccsim RSS (MiB) | SimGrid RSS (MiB) | pairs |"
  say "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}
contend() { # KIND P OP(ours) ALGO SMPIOP SMPIALG BYTES MODEL [FT ORDER TOPO GPUS]
  local kind=$1 p=$2 op=$3 algo=$4 sop=$5 salg=$6 bytes=$7 model=$8 ft=${9:-} order=${10:-id} topo=${11:-} gpus=${12:-}
  local i oc="" ow="" sc="" sw="" ot="" st=skip orss="" srss=""
  [ -n "$topo" ] || topo="crossbar:ranks=$p,bw=$OUR_BW,alpha=1us"
  local w="$op $algo ($kind${ft:+ $ft})"
  for ((i = 0; i < PAIRS; i++)); do
    if ! our_run "$topo" "$op" "$algo" "$bytes" "$model" "$gpus"; then
      say "| $w | $p | $model | ${OUR_ERR} | | | | | | | | | | |"
      return
    fi
    ot=$OUR_T orss=$OUR_RSS
    oc=$(python3 -c "print(min(x for x in [$OUR_CPU, ${oc:-1e9}]))") ow=$(python3 -c "print(min($OUR_WALL, ${ow:-1e9}))")
    [ $SG = 1 ] && [ "$salg" != - ] || continue
    sg_run "$kind" "$p" "$sop" "$bytes" "$salg" "$order" "$ft"
    st=$SG_T srss=$SG_RSS
    sc=$(python3 -c "print(min($SG_CPU, ${sc:-1e9}))") sw=$(python3 -c "print(min($SG_WALL, ${sw:-1e9}))")
  done
  python3 - "$w" "$p" "$model" "$ot" "$st" "$oc" "$sc" "$ow" "$sw" "$orss" "$srss" "$PAIRS" <<'EOF' | tee -a "$RESULTS"
import sys
w, p, model, ot, st, oc, sc, ow, sw, orss, srss, pairs = sys.argv[1:]
def f(x, fmt):
    try: return fmt.format(float(x))
    except ValueError: return x or "-"
agree = cratio = "-"
try:
    agree = f"{abs(float(ot) - float(st)) / float(st):.1e}"
    cratio = f"{float(sc) / max(float(oc), 1e-4):.0f}x"
except (ValueError, ZeroDivisionError):
    pass
print(f"| {w} | {p} | {model} | {f(ot, '{:.6e}')} | {f(st, '{:.6e}')} | {agree} | {f(oc, '{:.4f}')} | {f(sc, '{:.3f}')} | "
      f"{cratio} | {f(ow, '{:.3f}')} | {f(sw, '{:.2f}')} | {f(orss, '{:.0f}')} | {f(srss, '{:.0f}')} | {pairs} |")
EOF
}

contention_sections() {
say ""
say "## Contention: all-to-all posting every send at once (ccsim direct, SMPI basic_linear), flat crossbar, 1 MiB"
say "(every rank's link carries p-1 flows each way: max-min gives each B/(p-1); fifo queues them instead)"
ctable
for p in 16 64; do
  contend flat $p alltoall direct alltoall basic_linear 1048576 flow
  contend flat $p alltoall direct alltoall - 1048576 fifo
done

say ""
say "## Contention: ring allreduce on a 4:1 oversubscribed two-level fat tree, ranks strided over leaves"
say "(SimGrid FAT_TREE 2;k,L;1,1;1,1: L leaves of k hosts, one uplink per leaf; every ring neighbour is on"
say "another leaf, so each leaf uplink carries k flows each way. SimGrid shares max-min; ccsim --model flow"
say "does the same, --model fifo queues whole messages instead.)"
ctable
for kl in "8 8" "16 16" "32 32"; do
  read -r k L <<<"$kl"
  p=$((k * L)) ft="2;$k,$L;1,1;1,1"
  topo_json=$WORK/fattree-$k-$L.json
  gpus=$(python3 - "$k" "$L" "$topo_json" <<'EOF'
import json, sys
k, L, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
nodes = [{"name": f"gpu{i}", "kind": "gpu"} for i in range(k * L)]
nodes += [{"name": f"leaf{j}", "kind": "net_switch"} for j in range(L)] + [{"name": "spine", "kind": "net_switch"}]
link = lambda a, b: {"a": a, "b": b, "type": "ideal", "bw": "10GB/s", "latency": "0.5us", "source": "bench"}
links = [link(f"gpu{i}", f"leaf{i // k}") for i in range(k * L)] + [link(f"leaf{j}", "spine") for j in range(L)]
json.dump({"name": f"fattree-{k}x{L}-oversub{k}", "description": f"{L} leaves of {k} GPUs, one uplink per leaf",
           "nodes": nodes, "links": links}, open(path, "w"), indent=1)
print(",".join(str((r % L) * k + r // L) for r in range(k * L)))
EOF
)
  contend fattree $p allreduce ring allreduce lr 1048576 flow "$ft" stride "$topo_json" "$gpus"
  contend fattree $p allreduce ring allreduce - 1048576 fifo "$ft" stride "$topo_json" "$gpus"
done
}

N=67108864
if [ $ONLY_CONTENTION = 1 ]; then contention_sections; exit 0; fi
if [ $ONLY_TORUS = 0 ]; then
  say ""
  say "## Ring allreduce, 64 MiB, flat crossbar (SMPI lr)"
  header
  if [ -n "$ONLY_RING" ]; then compare flat "$ONLY_RING" allreduce ring allreduce lr $N fifo; exit 0; fi
  for p in 64 256 1024; do compare flat $p allreduce ring allreduce lr $N fifo; done
  if [ $BIG = 1 ]; then compare flat 2048 allreduce ring allreduce lr $N fifo; fi
fi

say ""
say "## Ring allreduce, 64 MiB, rank-order ring on 2D and 3D tori (SMPI lr on a TORUS cluster)"
say "(every neighbour link 10 GB/s and 0.5 us each way; the ring's row-wrap neighbour is two or three hops away"
say "in both simulators, dimension-order routed)"
header
tori=("8,8" "4,4,4" "16,16" "8,8,8" "32,32")
[ $BIG = 1 ] && tori+=("16,16,8")
for ext in "${tori[@]}"; do
  p=$(( ${ext//,/*} ))
  compare torus $p allreduce ring allreduce lr $N fifo "$ext" id "torus:dims=${ext//,/x},bw=$OUR_BW,alpha=0.5us"
done
[ $ONLY_TORUS = 1 ] && exit 0

say ""
say "## Other algorithms (if this build has them), flat crossbar"
header
for p in 64 1024; do compare flat $p broadcast "$BCAST_ALGO" bcast binomial_tree $N fifo; done
for p in 64 1024; do compare flat $p allreduce "$RDB_ALGO" allreduce rdb 1048576 fifo; done

contention_sections

say ""
say "## Scaling of ccsim alone: ring allreduce 64 MiB, flat crossbar, event by event"
say ""
say "| p | transfers | events | ccsim wall (s) | engine wall (s) | engine CPU (s) | events/s (wall) | events/s (CPU) | peak RSS (MiB) |"
say "|---|---|---|---|---|---|---|---|---|"
CSV=$OUT/scaling.csv
echo "p,transfers,events,wall_s,run_s,run_cpu_s,events_per_s,events_per_cpu_s,rss_mib" >"$CSV"
ps=(256 512 1024 2048 4096)
[ $BIG = 1 ] && ps+=(8192 16384)
for p in "${ps[@]}"; do
  if our_run "crossbar:ranks=$p,bw=$OUR_BW,alpha=1us" allreduce ring $N fifo; then
    tr=$(sed -n 's/.* transfers=\([^ ]*\).*/\1/p' <<<"$OUR_LINE")
    rc=$(sed -n 's/.* run_cpu_s=\([^ ]*\).*/\1/p' <<<"$OUR_LINE") ec=$(sed -n 's/.* events_per_cpu_s=\([^ ]*\).*/\1/p' <<<"$OUR_LINE")
    echo "$p,$tr,$OUR_EV,$OUR_WALL,$OUR_RUN,$rc,$OUR_EVS,$ec,$OUR_RSS" >>"$CSV"
    say "| $p | $tr | $OUR_EV | $OUR_WALL | $OUR_RUN | $rc | $OUR_EVS | $ec | $OUR_RSS |"
  else
    say "| $p | $OUR_ERR | | | | | | | |"
  fi
done
PLOTPY=python3 # Debian's python3-matplotlib belongs to /usr/bin/python3, which may not be first on PATH
python3 -c "import matplotlib" 2>/dev/null || { /usr/bin/python3 -c "import matplotlib" 2>/dev/null && PLOTPY=/usr/bin/python3; }
"$PLOTPY" - "$CSV" "$OUT/scaling.png" <<'EOF' | tee -a "$RESULTS"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if len(rows) < 2:
    sys.exit(0)
p = [float(r["p"]) for r in rows]
def slope(ys):
    xs = [math.log(x) for x in p]; ys = [math.log(max(y, 1e-9)) for y in ys]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
run = [float(r["run_cpu_s"]) for r in rows]; rss = [float(r["rss_mib"]) for r in rows]
wall = [float(r["wall_s"]) for r in rows]
big = [r for r in rows if float(r["p"]) >= 2048] or rows
print(f"\nLog-log slopes over p = {rows[0]['p']}..{rows[-1]['p']}: engine CPU time ~ p^{slope(run):.2f}, "
      f"process wall ~ p^{slope(wall):.2f}, peak RSS ~ p^{slope(rss):.2f} "
      f"(work = 2p(p-1) transfers ~ p^2; state ~ p).")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(p, run, "o-", label="engine CPU (s)")
    ax.loglog(p, wall, "s-", label="process wall (s)")
    ax.loglog(p, [r / 1024 for r in rss], "^-", label="peak RSS (GiB)")
    ax.loglog(p, [run[-1] * (x / p[-1]) ** 2 for x in p], "k:", label="~p^2")
    ax.set_xlabel("ranks p"); ax.set_title("ccsim ring allreduce 64 MiB, crossbar"); ax.legend(); ax.grid(True, which="both", alpha=.3)
    fig.tight_layout(); fig.savefig(sys.argv[2], dpi=100)
    print(f"Plot: {sys.argv[2]}")
except ImportError:
    print("(python3-matplotlib not installed: no plot)")
EOF

say ""
say "## Large runs"
say ""
say "| workload | p | ccsim wall (s) | ccsim CPU (s) | engine wall (s) | events | events/s (wall) | peak RSS (MiB) | sim time (s) |"
say "|---|---|---|---|---|---|---|---|---|"
big_row() {
  if our_run "$@"; then say "| $2 $3 | $(sed -n 's/.* ranks=\([^ ]*\).*/\1/p' <<<"$OUR_LINE") | $OUR_WALL | $OUR_CPU | $OUR_RUN | $OUR_EV | $OUR_EVS | $OUR_RSS | $OUR_T |"
  else say "| $2 $3 | - | $OUR_ERR | | | | | | |"; fi
}
if [ $BIG = 1 ]; then
  big_row "crossbar:ranks=16384,bw=$OUR_BW,alpha=1us" allreduce ring $N fifo
  big_row "crossbar:ranks=1048576,bw=$OUR_BW,alpha=1us" broadcast "$BCAST_ALGO" $N fifo
  big_row "crossbar:ranks=1048576,bw=$OUR_BW,alpha=1us" allreduce "$RDB_ALGO" 1048576 fifo
else
  say "| (ring allreduce p=16384, broadcast and recursive-doubling allreduce p=1048576 run with --big) | | | | | | | | |"
fi

say ""
say "## DGX-1 sweep, 8 B to 8 GiB (31 sizes), whole process"
measure "$WORK/dgx.out" "$CCSIM" --topo dgx1 -b 8 -e 8G
say ""
say "\`build/ccsim --topo dgx1 -b 8 -e 8G\`: wall $WALL s, CPU $CPU s, peak RSS $RSS MiB, rc $RC, $(grep -c '^ *[0-9]' "$WORK/dgx.out") rows."
say ""
"$ROOT/scripts/bench_nccl_sweep.sh" --ccsim "$CCSIM" --out "$OUT/nccl-sweep" --timeout "$TIMEOUT" | tee -a "$RESULTS"
if [ $LOGGOPSIM_ROWS = 1 ]; then
  lgs_opts=(--timeout "$TIMEOUT" --out "$OUT")
  [ $BIG = 1 ] && lgs_opts+=(--big)
  CCSIM=$CCSIM scripts/bench_loggopsim.sh "${lgs_opts[@]}"
fi
say ""
"$ROOT/scripts/bench_sweep.sh" "$OUT/sweep" | tee -a "$RESULTS"
say ""
say "Results: $RESULTS"
