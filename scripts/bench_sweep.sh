#!/bin/bash
# `ccsim sweep` throughput: one 10,000-point plan (10 machines x 5 allreduce algorithms x 2 step semantics
# x 10 sizes x 10 software latencies, one size per point) on 1 thread, 2 threads and 2 MPI ranks, as ratios
# to 1 thread, with the per-point cost distribution and rank 0's serving time per point (--stats).
# The three tables must be byte-identical (checked). Part of scripts/bench.sh (its last section), or alone:
#   scripts/bench_sweep.sh [OUTDIR]      (default build/bench-sweep; prints markdown)
set -euo pipefail
cd "$(dirname "$0")/.."
CCSIM=$(pwd)/build/ccsim
OUT=${1:-build/bench-sweep}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
command -v /usr/bin/time >/dev/null || { echo "bench_sweep: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
cat >"$OUT/plan.json" <<'P'
{"grid": {"topo": ["dgx1", "hgx-h100", "hgx-a100", "crossbar:ranks=4,bw=25GB/s,alpha=1us", "crossbar:ranks=16,bw=25GB/s,alpha=1us",
                   "crossbar:ranks=64,bw=25GB/s,alpha=1us", "torus:dims=4x4,bw=100GB/s,alpha=1us", "torus:dims=8x8,bw=100GB/s,alpha=1us",
                   "cluster:nodes=2,node=hgx-h100,nics=8x400G", "machine:gpu=h200,gpus=8"],
          "algo": ["ring", "recursive_doubling", "halving_doubling", "double_binary_tree", "reduce_bcast"],
          "semantics": ["gpu", "mpi"],
          "bytes": ["8", "32", "128", "512", "2K", "8K", "32K", "256K", "2M", "16M"],
          "sw-alpha": ["0us", "1us", "2us", "5us", "10us", "20us", "50us", "100us", "200us", "500us"]}}
P
# run NAME THREADS CMD...: wall and CPU seconds of the whole run (every rank's CPU under mpirun), --stats kept.
run() {
  local name=$1 jobs=$2; shift 2
  rm -f "$OUT/$name.csv"
  /usr/bin/time -f "%e %U %S" -o "$OUT/$name.time" "$@" sweep "$OUT/plan.json" -j "$jobs" --stats -o "$OUT/$name.csv" 2>"$OUT/$name.stats"
  read -r wall user sys <"$OUT/$name.time"
  eval "${name}_wall=$wall ${name}_cpu=$(echo "$user + $sys" | bc)"
}
echo "## ccsim sweep: 10,000 points, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run j1 1 "$CCSIM"
run j2 2 "$CCSIM"
cmp -s "$OUT/j1.csv" "$OUT/j2.csv" || { echo "bench_sweep: -j 2 table differs from -j 1" >&2; exit 1; }
mpi=0
# Built with MPI: its module sits beside the binary (build tree) or in <prefix>/lib/ccsim (ldd shows no libmpi: it is dlopened).
mpi_dir=$(dirname "$CCSIM")
if command -v mpirun >/dev/null && { [ -e "$mpi_dir/ccsim_sweep_mpi.so" ] || [ -e "$mpi_dir/../lib/ccsim/ccsim_sweep_mpi.so" ]; }; then
  run np2 1 mpirun --allow-run-as-root --oversubscribe -np 2 "$CCSIM"
  grep -q 'x 2 rank(s)' "$OUT/np2.stats" && mpi=1
  cmp -s "$OUT/j1.csv" "$OUT/np2.csv" || { echo "bench_sweep: mpirun -np 2 table differs from -j 1" >&2; exit 1; }
fi
ratio() { echo "scale=2; $1 / $2" | bc; }
echo ""
echo "| run | wall (s) | CPU (s) | speed-up (wall, vs 1 thread) |"
echo "|---|---|---|---|"
echo "| \`ccsim sweep -j 1\` | $j1_wall | $j1_cpu | 1.00 |"
echo "| \`ccsim sweep -j 2\` | $j2_wall | $j2_cpu | $(ratio "$j1_wall" "$j2_wall") |"
if [ $mpi = 1 ]; then echo "| \`mpirun -np 2 ccsim sweep -j 1\` | $np2_wall | $np2_cpu | $(ratio "$j1_wall" "$np2_wall") |"
else echo "| mpirun -np 2 | (skipped: no mpirun, or ccsim built without MPI) | | |"; fi
echo ""
echo "Per-point cost (1 thread) and rank 0's serving time (mpirun):"
echo '```'
cat "$OUT/j1.stats"
[ $mpi = 1 ] && cat "$OUT/np2.stats"
echo '```'
python3 - "$OUT/j1.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
errors = sum(r["error"] != "" for r in rows)
print(f"{errors} of {len(rows)} rows are errors (an algorithm that does not fit the machine); the tables are identical across the runs.")
PY
