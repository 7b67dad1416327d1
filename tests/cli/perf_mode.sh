#!/bin/bash
# nccl-tests mode end to end, read the way real scripts read all_reduce_perf: rows are the lines with
# 12 or 13 fields, the footer is grepped for "# Avg bus bandwidth", an sbatch-style script runs with the
# binary swapped (as `ccsim all_reduce_perf`, and unchanged through a symlink), srun-style launches print
# once, and `ccsim compare` reads ccsim's own outputs back with no hints and zero error.
set -u
ccsim="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/nccl-tests/build"
ln -s "$ccsim" "$tmp/bin/ccsim"
for p in all_reduce all_gather reduce_scatter broadcast reduce alltoall gather scatter; do ln -s "$ccsim" "$tmp/nccl-tests/build/${p}_perf"; done

# An sbatch script as clusters keep them (#SBATCH lines are comments to bash), with its parsers.
cat > "$tmp/nccl.sbatch.in" <<'EOF'
#!/bin/bash
#SBATCH --job-name=nccl-allreduce
#SBATCH --nodes=1
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
set -eo pipefail
NCCL_TESTS=${NCCL_TESTS:-/opt/nccl-tests/build}
export NCCL_DEBUG=WARN
@PERF@ -b 8 -e 128M -f 2 -g 8 -w 5 -n 20 -c 1 | tee allreduce.log
echo "rows: $(awk 'NF==12 || NF==13' allreduce.log | grep -vc '^#')"
echo "avg: $(grep "# Avg bus bandwidth" allreduce.log | awk '{print $NF}')"
EOF
# The script as it is kept, and the same with the binary swapped for `ccsim all_reduce_perf`.
sed 's|@PERF@|${NCCL_TESTS}/all_reduce_perf|' "$tmp/nccl.sbatch.in" >"$tmp/nccl.sbatch"
sed 's|@PERF@|ccsim all_reduce_perf|' "$tmp/nccl.sbatch.in" >"$tmp/ccsim.sbatch"
chmod +x "$tmp/nccl.sbatch" "$tmp/ccsim.sbatch"
check_sbatch() { # $1 = what ran
  local out="$2"
  # 8 B .. 128 MiB by factor 2: 2^3 .. 2^27 = 25 sizes (hand count).
  grep -qx 'rows: 25' "$out" || fail "$1: 12/13-field row count: $(grep rows: "$out")"
  local avg; avg=$(grep '^avg:' "$out" | awk '{print $2}')
  [[ "$avg" =~ ^[0-9.]+(e[-+][0-9]+)?$ ]] || fail "$1: Avg bus bandwidth is not a number: '$avg'"
  # The same average from the printed rows (both busbw columns), equal to the printing's rounding.
  awk -v avg="$avg" 'NF==13 && $1 ~ /^[0-9]+$/ {s += $8 + $12; n += 2} END {d = s/n - avg; if (d < 0) d = -d; exit !(n == 50 && d < 0.01)}' \
    "$3" || fail "$1: Avg bus bandwidth $avg is not the mean busbw of the rows"
}
(cd "$tmp" && PATH="$tmp/bin:$PATH" ./ccsim.sbatch >sb1.out 2>sb1.err) || fail "sbatch with 'ccsim all_reduce_perf' exited $?: $(cat "$tmp/sb1.err")"
check_sbatch "ccsim all_reduce_perf" "$tmp/sb1.out" "$tmp/allreduce.log"
cp "$tmp/allreduce.log" "$tmp/perf.txt"
(cd "$tmp" && NCCL_TESTS="$tmp/nccl-tests/build" ./nccl.sbatch >sb2.out 2>sb2.err) ||
  fail "sbatch through an all_reduce_perf symlink exited $?: $(cat "$tmp/sb2.err")"
check_sbatch "symlink all_reduce_perf" "$tmp/sb2.out" "$tmp/allreduce.log"
cmp -s "$tmp/perf.txt" "$tmp/allreduce.log" || fail "symlink and 'ccsim all_reduce_perf' outputs differ"

# The machine and model of a script run unchanged come from the environment (flags still win).
CCSIM_TOPO=hgx-h100 CCSIM_MODEL=fifo "$tmp/nccl-tests/build/all_gather_perf" -g 8 -b 1M -e 1M >"$tmp/env" || fail "CCSIM_TOPO run exited $?"
grep -q 'by model fifo on topology hgx-h100' "$tmp/env" || fail "CCSIM_TOPO/CCSIM_MODEL not used: $(grep 'ccsim prediction' "$tmp/env")"
CCSIM_TOPO=hgx-h100 "$ccsim" all_gather_perf --topo dgx1 -g 8 -b 1M -e 1M | grep -q 'topology dgx1-v100' || fail "--topo does not win over CCSIM_TOPO"

# The shape, line by line (nccl-tests src/common.cu).
f="$tmp/perf.txt"
head -1 "$f" | grep -qx '# Collective test starting: all_reduce_perf' || fail "first line: $(head -1 "$f")"
grep -qx '# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0' "$f" ||
  fail "nThread line: $(grep nThread "$f")"
grep -q '^# ccsim prediction, no GPU ran: all_reduce_perf by model nccl + models/params-nccl-default.json (shipped default) on topology dgx1-v100' "$f" || fail "no ccsim provenance line"
grep -q '^# ccsim: accepted, cannot change a prediction.*-n 20, -w 5' "$f" || fail "-n/-w not said to be without effect"
[ "$(grep -c '^#  Rank  [0-7] Group  0 Pid ' "$f")" -eq 8 ] || fail "expected 8 '#  Rank' device lines"
grep -qE '^#  +size +count +type +redop +root +time +algbw +busbw +#wrong +time +algbw +busbw +#wrong *$' "$f" || fail "column header"
grep -qx '# Out of bounds values : 0 OK' "$f" || fail "out-of-bounds footer"
[ "$(tail -1 "$f")" = "#" ] || fail "last line is not '#'"
# Every row: algbw = size/time (GB = 1e9 B) and busbw = algbw * 2*7/8, to the printing's precision; #wrong 0;
# in-place equal to out-of-place.
awk 'NF==13 && $1 ~ /^[0-9]+$/ {
       a = $1 / 1000 / $6; if ((a - $7) > 0.006 + a*0.001 || ($7 - a) > 0.006 + a*0.001) bad = bad " algbw@" $1;
       b = $7 * 1.75;      if ((b - $8) > 0.02 || ($8 - b) > 0.02) bad = bad " busbw@" $1;
       if ($9 != "0" || $13 != "0") bad = bad " wrong@" $1;
       if ($6 != $10 || $8 != $12) bad = bad " inplace@" $1 }
     END {if (bad != "") {print bad; exit 1}}' "$f" || fail "row arithmetic: $(awk 'NF==13' "$f" | head -2)"
# Time precision by magnitude: 2 decimals below 100 us, 1 below 10 ms.
awk 'NF==13 && $1 ~ /^[0-9]+$/ {n = split($6, p, "."); d = n > 1 ? length(p[2]) : 0; w = ($6 < 100) ? 2 : ($6 < 10000) ? 1 : 0;
     if (d != w) {print $6; exit 1}}' "$f" || fail "time precision"

# Only rows have 12 or 13 fields, also for parsers that do not skip '#' lines (varied flags, 4 and 16 ranks).
for args in "-g 8 -n 20 -w 5" "-g 4 -d all -o all -G 1 -z 1 -a 2 -T 30" "-g 8 --topo hgx-h100 --model fifo -N 2 -m 4 -c 0" \
            "--procs 2 -g 8 --topo cluster:nodes=2,node=hgx-h100,nics=8x400G -p 1 -y 1 -R 1"; do
  "$ccsim" all_reduce_perf -b 1K -e 1M -f 32 $args >"$tmp/nf" || fail "all_reduce_perf $args exited $?"
  bad=$(awk '(NF==12 || NF==13) && /^#/' "$tmp/nf")
  [ -z "$bad" ] || fail "a '#' line of 12/13 fields with '$args': $bad"
done

# srun-style launch: every task runs ccsim, only task 0 prints; ranks = tasks x -g.
cat > "$tmp/bin/srun" <<'EOF'
#!/bin/bash
# Stand-in for Slurm's srun: -n N starts N copies with the variables srun sets for each task.
n=1
while [ $# -gt 0 ]; do case "$1" in -n) n=$2; shift 2 ;; --ntasks=*) n=${1#*=}; shift ;; -*) shift ;; *) break ;; esac; done
for ((i = 0; i < n; i++)); do SLURM_STEP_NUM_TASKS=$n SLURM_PROCID=$i "$@" & done
wait
EOF
chmod +x "$tmp/bin/srun"
PATH="$tmp/bin:$PATH" srun -n 8 --mpi=pmix "$tmp/nccl-tests/build/all_reduce_perf" -b 1M -e 1M -g 1 >"$tmp/srun.out" 2>&1
[ "$(grep -c 'Avg bus bandwidth' "$tmp/srun.out")" -eq 1 ] || fail "srun -n 8: expected one footer, got $(grep -c 'Avg bus' "$tmp/srun.out")"
[ "$(grep -c '^#  Rank' "$tmp/srun.out")" -eq 8 ] || fail "srun -n 8 -g 1: expected 8 ranks"
grep -q '8 ranks = 8 processes (SLURM_STEP_NUM_TASKS) x nThread 1 x nGpus 1' "$tmp/srun.out" || fail "srun: rank count line"
# Bare model (CCSIM_PARAMS=none): the shipped calibration charges a launch per GPU a thread drives, so
# -g 8 (8 launches per thread) is rightly slower than 8 processes with -g 1 at small sizes.
cmp -s <(CCSIM_PARAMS=none PATH="$tmp/bin:$PATH" srun -n 8 --mpi=pmix "$tmp/nccl-tests/build/all_reduce_perf" -b 1M -e 1M -g 1 2>&1 | awk 'NF==13') \
  <(CCSIM_PARAMS=none "$ccsim" all_reduce_perf -b 1M -e 1M -g 8 | awk 'NF==13') || fail "srun -n 8 -g 1 differs from -g 8 rows"

# -c 0: #wrong is N/A, rows keep 13 fields; -C 1 labels cputime; -t threads multiply ranks.
"$ccsim" all_gather_perf -b 1K -e 4K -f 2 -t 2 -g 4 -c 0 -C 1 >"$tmp/c0" || fail "-c 0 -C 1 exited $?"
[ "$(awk 'NF==13 && $9=="N/A" && $13=="N/A"' "$tmp/c0" | wc -l)" -eq 3 ] || fail "-c 0 rows: $(awk 'NF==13' "$tmp/c0" | head -1)"
grep -qE '^#.* cputime .* cputime ' "$tmp/c0" || fail "-C 1 does not label cputime"
[ "$(grep -c '^#  Rank' "$tmp/c0")" -eq 8 ] || fail "-t 2 -g 4 is not 8 ranks"
# nccl-tests defaults: 32 MiB only, 1 GPU.
"$ccsim" all_reduce_perf --topo dgx1 >"$tmp/def" || fail "defaults exited $?"
[ "$(awk 'NF==13 && $1=="33554432"' "$tmp/def" | wc -l)" -eq 1 ] || fail "default sizes are not 32 MiB only"
grep -q 'step: 1048576(bytes) warmup iters: 1 iters: 20' "$tmp/def" || fail "default step/warmup/iters"
# -r -1: every root in turn; -i additive step.
[ "$("$ccsim" broadcast_perf -g 4 -r -1 -b 1M -e 3M -i 1M | awk 'NF==13' | wc -l)" -eq 12 ] || fail "-r -1 -i 1M: expected 4 roots x 3 sizes"

# compare reads every ccsim output back without --op/--ranks: zero error (text: to the printed digits).
"$ccsim" --topo dgx1 --model nccl -b 1K -e 128M >"$tmp/t.txt"
"$ccsim" --topo dgx1 --model nccl -b 1K -e 128M --format csv >"$tmp/t.csv"
"$ccsim" --topo dgx1 --model nccl -b 1K -e 128M --format json >"$tmp/t.json"
"$ccsim" all_gather_perf --model fifo -g 4 -b 64K -e 64M -f 4 >"$tmp/ag.txt"
for spec in "t.txt nccl 0.1" "t.csv nccl 0" "t.json nccl 0" "perf.txt nccl 0.1" "ag.txt fifo 0.2"; do
  set -- $spec
  "$ccsim" compare --trace "$tmp/$1" --topo dgx1 --model "$2" --format json >"$tmp/cmp.json" 2>"$tmp/cmp.err" ||
    { fail "compare $1 exited: $(cat "$tmp/cmp.err")"; continue; }
  python3 - "$tmp/cmp.json" "$3" <<'EOF' || fail "compare $1: error above $3%"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["summary"]["rows"] >= 6, j["summary"]
sys.exit(0 if j["summary"]["max_abs_err_pct"] <= float(sys.argv[2]) else 1)
EOF
done

# Bad input: one line, exit 2.
expect_error() {
  "$ccsim" "$@" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "'$*' printed $(wc -l <"$tmp/err") lines on stderr"
}
expect_error all_reduce_perf -g 16
expect_error all_reduce_perf -b 1X
expect_error all_reduce_perf -b 2G -e 1G
expect_error all_reduce_perf -f 1 -i 0
expect_error all_reduce_perf -N 0
expect_error all_reduce_perf -d float8
expect_error all_reduce_perf -o xor
expect_error all_reduce_perf -g 99999999999999999999
expect_error all_reduce_perf -b 2000G
expect_error all_reduce_perf --no-such-flag 1
expect_error broadcast_perf -g 8 -r 8
expect_error alltoallv_perf -g 2
OMPI_COMM_WORLD_SIZE=x expect_error all_reduce_perf
# The main command keeps -t for --topo.
"$ccsim" -t dgx1 -b 1M -e 1M >/dev/null || fail "main command -t dgx1 exited $?"

[ $fails -eq 0 ] && echo "perf mode: all checks passed"
exit $((fails > 0))
