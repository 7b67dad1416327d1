#!/bin/bash
# Twelfth user trial (a cluster operator with a folder of nccl-tests outputs from a new cluster, an ML-systems engineer
# choosing a ring order on an odd machine, a Python user in a notebook). Each friction, fixed and kept fixed:
#  - compare took one --trace file: a folder of slurm .out files (some failed, one empty) had to be looped over in
#    the shell, with no verdict, no threshold and exit status 0 whatever the measured busbw. Now --trace takes several
#    files or a folder: one line per run (measured/predicted busbw over the bandwidth-bound sizes >= 1 MiB), a verdict
#    against --healthy PCT, the why line under a run below it, every unreadable file named; exit 0/1/2;
#  - a one-node (8-rank) run compared against the cluster's description (machine:...,nodes=2) was predicted as a
#    2-node communicator (NCCL graph "2 node(s)", tree/LL at small sizes), and a 2-node run against nodes=4 as 4 nodes
#    (350 against 435 GB/s at 1 GiB): NCCL's node count is the communicator's hosts, not the machine's;
#  - a mistyped flag (--ring-order for --ring, --topology for --topo) got CLI11's "arguments were not expected"
#    with no word on the flag meant.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL)_[A-Z0-9_]*'); do unset "$v"; done
. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

W="$src/tests/data/wild_traces"
H100x2="machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"
# A freshly delivered cluster's folder: byte copies of public runs (headers kept, numbers untouched).
d="$tmp/cluster"; mkdir -p "$d"
cp "$W/h100-xe9680-2node-16gpu-allreduce-8B-16G-ib400-nccl2262-nccltests309.txt" "$d/slurm-4101.out"
cp "$W/h100-nebius-2node-16gpu-allreduce-8B-8G-nohash-dstack.txt" "$d/slurm-4102.out"
cp "$W/h100-p5-2node-16gpu-allreduce-elided-tagoutput-awsome-eks.txt" "$d/slurm-4104.out"   # the slow one
cp "$W/rtx5090-2gpu-allreduce-crash-before-first-row-nccltests287.txt" "$d/slurm-4106.out"  # crashed before a row
: > "$d/slurm-4107.out"                                                                      # a node that never ran
cp "$W/h100-p5-8gpu-allreduce-8B-16G-tagoutput-awsbatch.txt" "$d/slurm-4108.out"           # one node, 8 ranks
summary() { "$ccsim" compare --topo "$H100x2" --model nccl "$@"; }

# --- (a) a folder: one line per run, a verdict each, every bad file named, exit 2 -------------------------------
summary --trace "$d" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" -eq 2 ] || bad "a folder with an empty and a crashed file: exit $rc, want 2"
for f in 4101 4102 4108; do grep -qE "^$d/slurm-$f.out +1/1 +allreduce .* ok$" "$tmp/out" || bad "slurm-$f.out not ok: $(grep "$f" "$tmp/out")"; done
grep -qE "^$d/slurm-4104.out +1/1 +allreduce +16 .*BELOW: [0-9.]+ % under the prediction" "$tmp/out" || bad "slurm-4104.out not below: $(grep 4104 "$tmp/out")"
grep -A1 "slurm-4104.out" "$tmp/out" | grep -q "^#   why (bandwidth band" || bad "no why line under the run below"
# NCCL's pick there is NVLS-tree, a closed form that names no link: the line goes on with the rings' replay, which does.
grep -A1 "slurm-4104.out" "$tmp/out" | grep -q "replayed as rings (--nccl-algo ring): bound by 32 ib links (network" || bad "the why line names no link"
for f in 4106 4107; do
  grep -qE "^$d/slurm-$f.out .*ERROR: $d/slurm-$f.out: " "$tmp/out" || bad "slurm-$f.out not listed as an error"
  grep -q "^ccsim: $d/slurm-$f.out: " "$tmp/err" || bad "slurm-$f.out not named on stderr"
done
[ "$(wc -l <"$tmp/err")" -eq 2 ] || bad "stderr: $(wc -l <"$tmp/err") lines for 2 unreadable files"
tail -1 "$tmp/out" | grep -q "6 file(s), 6 run(s): 3 ok, 1 below, 0 without a verdict, 2 not compared; exit status 2" || bad "tally: $(tail -1 "$tmp/out")"

# Exit status for a script: 0 all ok, 1 a run below --healthy.
summary --trace "$d/slurm-4101.out" "$d/slurm-4102.out" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 0 ] || bad "two healthy runs: exit $rc, want 0"
summary --trace "$d/slurm-4101.out" "$d/slurm-4104.out" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 1 ] || bad "a run below 80 %: exit $rc, want 1"
summary --trace "$d/slurm-4101.out" "$d/slurm-4102.out" --healthy 150 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 1 ] || bad "--healthy 150: exit $rc, want 1"
summary --trace "$d/slurm-4101.out" --summary >/dev/null 2>&1; rc=$?
[ "$rc" -eq 0 ] || bad "--summary on one healthy file: exit $rc, want 0"

# The ratio by an independent route: from the one-file JSON's rows, the median over rows of 1 MiB and more whose
# predicted busbw is at least half the peak, of measured / predicted busbw.
summary --trace "$d/slurm-4104.out" --format json >"$tmp/one.json" 2>/dev/null
summary --trace "$d/slurm-4104.out" --summary --format json >"$tmp/sum.json" 2>/dev/null
python3 - "$tmp/one.json" "$tmp/sum.json" <<'EOF' || bad "summary ratio differs from the rows' median"
import json, statistics, sys
rows = json.load(open(sys.argv[1]))["rows"]
peak = max(r["predicted_busbw"] for r in rows)
want = 100 * statistics.median(r["measured_busbw"] / r["predicted_busbw"] for r in rows
                               if r["size"] >= 1 << 20 and r["predicted_busbw"] >= 0.5 * peak)
got = json.load(open(sys.argv[2]))
run = got["runs"][0]
assert got["kind"] == "ccsim-compare-summary" and got["exit_status"] == 1, got
assert run["verdict"] == "below" and abs(run["measured_over_predicted_pct"] - want) < 1e-9, (run, want)
EOF
summary --trace "$d/slurm-4101.out" "$d/slurm-4107.out" --format csv 2>/dev/null | head -1 |
  grep -q "^file,run,runs,op,ranks,min_size,max_size,rows,measured_over_predicted_pct,verdict,detail$" || bad "csv header"

refused_one_line "--healthy: 'nan' is not a number" compare --topo "$H100x2" --trace "$d" --healthy nan
refused_one_line "--healthy: 0 is out of range" compare --topo "$H100x2" --trace "$d" --healthy 0
refused_one_line "--healthy: sets the summary's threshold" compare --topo "$H100x2" --trace "$d/slurm-4101.out" --healthy 90
mkdir -p "$tmp/empty"
refused_one_line "--trace $tmp/empty: is a directory, not a trace file, and holds no files to compare" compare --trace "$tmp/empty"
refused_one_line "--plot: draws one trace" compare --topo "$H100x2" --trace "$d" --plot "$tmp/p.png"
# A folder holding one file is still a folder of runs: the summary, with its verdict and exit status (mutation pass).
mkdir -p "$tmp/one" && cp "$d/slurm-4101.out" "$tmp/one/"
summary --trace "$tmp/one" >"$tmp/out1" 2>/dev/null; rc=$?
[ "$rc" -eq 0 ] || bad "a folder of one healthy file: exit $rc, want 0"
tail -1 "$tmp/out1" | grep -q "1 file(s), 1 run(s): 1 ok, 0 below" || bad "a folder of one file: no summary ($(tail -1 "$tmp/out1"))"

# --- (a) a run on fewer hosts than the description: NCCL's node count is the communicator's -------------------
# By hand: GPUs 0-7 of the 2-node description are its first node, so 8 ranks there are the one-node machine.
one=$("$ccsim" compare --topo machine:gpu=h100 --model nccl --trace "$d/slurm-4108.out" --format csv)
two=$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$d/slurm-4108.out" --format csv)
[ "$(echo "$one" | cut -d, -f1,4,8)" = "$(echo "$two" | cut -d, -f1,4,8)" ] || bad "8 ranks on the 2-node description predict otherwise than one node"
"$ccsim" compare --topo "$H100x2" --model nccl --trace "$d/slurm-4108.out" | grep -q "^# nccl graph: .* 1 node(s)" || bad "8 ranks on one node: not 1 node"
# A 2-node run against a 4-node description: its 16 ranks fill the first two nodes, as on the 2-node one.
a=$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$d/slurm-4101.out" --format csv)
b=$("$ccsim" compare --topo machine:gpu=h100,nodes=4,nics=8x400G,kind=ib --model nccl --trace "$d/slurm-4101.out" --format csv)
[ "$(echo "$a" | cut -d, -f1,4,8)" = "$(echo "$b" | cut -d, -f1,4,8)" ] || bad "16 ranks on a 4-node description predict otherwise than on 2 nodes"

# --- (b) a mistyped flag names the flag meant ----------------------------------------------------------------------
refused_one_line "ccsim: --ring-order: no such flag; did you mean --ring? The following arguments were not expected:" --topo dgx1 --ring-order 0,3,2,1,5,6,7,4 -b 1M -e 1M
refused_one_line "ccsim: --topology: no such flag; did you mean --topo? The following" rings --topology dgx1
refused_one_line "ccsim: --healty: no such flag; did you mean --healthy? The following" compare --trace "$d" --healty 90
refused_one_line "ccsim: The following argument was not expected: --frobnicate (see ccsim --help)" --frobnicate

# A run whose pick is a closed form (NVLS-tree on 10 H100 nodes) below --healthy: its why line is its own band and
# finding, then the rings' line after their band; the closed form's own check ("the model's pick here is a closed
# form ...") is replaced by the hint, not left in front of it (mutation pass 4, scripts/MUTANTS.md).
w=$("$ccsim" compare --trace "$W/h100-10node-80gpu-allreduce-32M-16G-double-srun-nccl2292-nccltestscluster.txt" --model nccl \
    --topo machine:gpu=h100,nodes=10,nics=8x400G,kind=ib --op allreduce --summary --healthy 200 2>&1 | grep "why (bandwidth band")
echo "$w" | grep -q "predicted; NCCL's pick is a closed form, replayed as rings (--nccl-algo ring): no link full in the replay" ||
  bad "closed-form run's why line not spliced as band + finding + the rings' line: $w"
echo "$w" | grep -q "the model's pick here is a closed form" && bad "closed-form run's own check left in the spliced why line: $w"

[ "$fails" -eq 0 ] && echo "all new-user friction checks (12th trial) pass"
exit $((fails > 0))
