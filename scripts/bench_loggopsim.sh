#!/bin/bash
# ccsim beside LogGOPSim (spcl/LogGOPSim with the stable-sort fix, shared/peers/loggopsim/README.md): binomial
# broadcast, ring allreduce and halving-doubling (Schedgen's allreduce_recdoub is Rabenseifner's algorithm) at
# p >= 1024 on a crossbar, same alpha-beta (alpha = 1 us, B = 10 GB/s; LogGOPSim L = 1e6, G = 100, its unit 1 ps).
# The two programs run alternately, PAIRS times per row; each column is the least CPU time (user+sys of the
# process, from getrusage) of its runs. Schedule generation (schedgen + txt2bin) is not counted; the binary
# schedules are kept in DIR/loggopsim/ and reused.
#
#   scripts/bench_loggopsim.sh [--big] [--pairs N] [--timeout S] [--out DIR]
#   env CCSIM: the ccsim binary to measure (default build/ccsim).
#   env LOGGOPSIM: a LogGOPSim checkout built by shared/peers/loggopsim/build.sh (bld/ and bld-stable/);
#       default build/peers/loggopsim. If it holds src/ but no build, build.sh (found beside this project in
#       ../shared/peers/loggopsim or ../../shared/peers/loggopsim) builds it. Absent: the section says skipped.
# Called by scripts/bench.sh (appends to its results.md); prints one markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIG=0 PAIRS=2 TIMEOUT=300 OUT=build/bench
while [ $# -gt 0 ]; do
  case $1 in
    --big) BIG=1 ;;
    --pairs) PAIRS=$2; shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --out) OUT=$2; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "bench_loggopsim: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CCSIM=${CCSIM:-$ROOT/build/ccsim} # bench.sh passes its CCSIM
LGS=${LOGGOPSIM:-$ROOT/build/peers/loggopsim}
say() { echo "$*" | tee -a "$OUT/results.md"; }

say ""
say "## Beside LogGOPSim: binomial broadcast, ring and halving-doubling allreduce, 64 MiB, crossbar"
if [ ! -x "$LGS/bld-stable/LogGOPSim" ] && [ -d "$LGS/src/LogGOPSim" ]; then
  for b in "$ROOT/../shared/peers/loggopsim/build.sh" "$ROOT/../../shared/peers/loggopsim/build.sh"; do
    if [ -f "$b" ]; then bash "$b" "$LGS" >"$OUT/loggopsim-build.log" 2>&1 || true; break; fi
  done
fi
if [ ! -x "$LGS/bld-stable/LogGOPSim" ] || [ ! -x "$LGS/bld/schedgen" ] || [ ! -x "$LGS/bld/txt2bin" ]; then
  say "LogGOPSim: skipped (no build at $LGS: get spcl/LogGOPSim and build it as shared/peers/loggopsim/README.md"
  say "says, needs re2c gengetopt libgraphviz-dev libboost-iostreams-dev; or set LOGGOPSIM=<checkout>)"
  exit 0
fi
SCHED=$OUT/loggopsim
mkdir -p "$SCHED"

# cpu_run OUTFILE CMD...: prints "CPU_S RSS_MIB RC WALL_S" of the command (see scripts/cpu_run.py: CPU and peak
# RSS of the program's own process tree from wait4, CPU to the microsecond, no wrapper counted; rc 124 on timeout).
cpu_run() { python3 scripts/cpu_run.py "$TIMEOUT" "$@"; }

# schedule PATTERN P -> path of LogGOPSim's binary schedule (generated once, not timed).
schedule() {
  local bin=$SCHED/$1-$2.bin goal=$SCHED/$1-$2.goal
  if [ ! -s "$bin" ]; then
    timeout "$TIMEOUT" "$LGS/bld/schedgen" --ptrn "$1" --commsize "$2" --datasize 67108864 -o "$goal" >/dev/null 2>&1 &&
      timeout "$TIMEOUT" "$LGS/bld/txt2bin" -i "$goal" -o "$bin" >/dev/null 2>&1 || rm -f "$bin"
    rm -f "$goal"
  fi
  [ -s "$bin" ] && echo "$bin"
}

say "(LogGOPSim: the stable-sort build, \`-L 1000000 -o 0 -g 0 -G 100 -O 0 -S 2147483647\`; ccsim: \`ccsim bench"
say "--topo crossbar:ranks=P,bw=10GB/s,alpha=1us\`, default semantics. LogGP charges L + (s-1)G per message, ccsim"
say "alpha + s/B, so ccsim is later by one G = 100 ps per message on the critical path: k below. CPU = user+sys of"
say "the whole process, least of $PAIRS alternating runs each; LogGOPSim's schedule generation not counted.)"
say ""
say "| workload | p | ccsim time (ps) | LogGOPSim time (ps) | difference / G | critical-path messages k | LogGOPSim CPU (s) | ccsim CPU (s) | LogGOPSim/ccsim CPU | LogGOPSim RSS (MiB) | ccsim RSS (MiB) |"
say "|---|---|---|---|---|---|---|---|---|---|---|"

# row NAME PATTERN OP ALGO K P
row() {
  local name=$1 pat=$2 op=$3 algo=$4 k=$5 p=$6 bin lc=() cc=() lr cr lt ct i
  if ! bin=$(schedule "$pat" "$p"); then say "| $name | $p | | schedgen/txt2bin failed or timed out | | | | | | | |"; return; fi
  for ((i = 0; i < PAIRS; i++)); do
    read -r c lr rc _ < <(cpu_run "$SCHED/lgs.out" "$LGS/bld-stable/LogGOPSim" -f "$bin" -L 1000000 -o 0 -g 0 -G 100 -O 0 -S 2147483647 -b)
    [ "$rc" = 0 ] && lc+=("$c") || lc+=("rc$rc")
    read -r c cr rc _ < <(cpu_run "$SCHED/ccsim.out" "$CCSIM" bench --topo "crossbar:ranks=$p,bw=10GB/s,alpha=1us" --op "$op" --algo "$algo" -n 64M)
    [ "$rc" = 0 ] && cc+=("$c") || cc+=("rc$rc")
  done
  lt=$(sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\) .*/\1/p' "$SCHED/lgs.out" | tail -1)
  ct=$(sed -n 's/.* sim_time_ps=\([0-9]*\) .*/\1/p' "$SCHED/ccsim.out")
  python3 - "$name" "$p" "$k" "${ct:-}" "${lt:-}" "$lr" "$cr" "${lc[*]}" "${cc[*]}" <<'EOF' | tee -a "$OUT/results.md"
import sys
name, p, k, ct, lt, lr, cr, lc, cc = sys.argv[1:]
def best(xs):
    v = [float(x) for x in xs.split() if not x.startswith("rc")]
    return min(v) if v else None
l, c = best(lc), best(cc)
diff = f"{(int(ct) - int(lt)) / 100:g}" if ct and lt else "-"
ratio = (lambda r: f"{r:.1f}x" if r < 10 else f"{r:.0f}x")(l / max(c, 1e-4)) if l is not None and c is not None else "-"
fmt = lambda v, xs: f"{v:.4f}" if v is not None else xs
print(f"| {name} | {p} | {ct or '-'} | {lt or 'failed'} | {diff} | {k} | {fmt(l, lc)} | {fmt(c, cc)} | {ratio} | {lr} | {cr} |")
EOF
}

log2() { local n=$1 l=0; while [ "$n" -gt 1 ]; do n=$((n / 2)); l=$((l + 1)); done; echo $l; }
bc_ps=(1024 16384 65536)
hd_ps=(1024 16384)
ring_ps=(1024)
if [ $BIG = 1 ]; then bc_ps+=(1048576); hd_ps+=(65536); ring_ps+=(2048); fi
for p in "${bc_ps[@]}"; do row "broadcast binomial" binomialtreebcast broadcast binomial "$(log2 "$p")" "$p"; done
for p in "${hd_ps[@]}"; do row "allreduce halving-doubling" allreduce_recdoub allreduce halving_doubling "$((2 * $(log2 "$p")))" "$p"; done
for p in "${ring_ps[@]}"; do row "allreduce ring" allreduce_ring allreduce ring "$((2 * (p - 1)))" "$p"; done
