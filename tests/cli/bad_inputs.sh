#!/bin/bash
# Every bad input must give exactly one line on stderr that names the file or flag, exit status 2,
# nothing on stdout, and no output file. Cases: tests/data/bad/*.json (topologies, with the expected
# message fragment in their "_expect" field, a comment key) and the command lines below.
set -u
ccsim="$1"; dir="$2"; sanitized="${3:-0}" # 1: an ASan/UBSan build (no ulimit -v case, no time bounds)
fails=0; n=0
check() { # expected-fragment, then the command's arguments
  local want="$1"; shift
  n=$((n+1))
  local out err rc
  out=$(mktemp); err=$(mktemp)
  # CPU seconds bound the work (a loaded machine stretches wall time, not CPU time); the wall bound only catches a wait.
  (ulimit -t 20; timeout 300 "$ccsim" "$@") >"$out" 2>"$err"; rc=$?
  local lines; lines=$(wc -l <"$err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$out" ] || ! grep -qF -- "$want" "$err"; then
    echo "FAIL: ccsim $* -> rc=$rc, stderr lines=$lines, stdout bytes=$(wc -c <"$out"), want '$want'"; sed 's/^/  | /' "$err"
    fails=$((fails+1))
  fi
  rm -f "$out" "$err"
}
# explain: flags that would be silently ignored or give a zero-byte run
check "--ranks 16: the placement on --topo dgx1 has 8 GPUs" explain --ranks 16 --topo dgx1
check "--alpha: with --topo" explain --topo dgx1 --alpha 1us
check "--size: 3 B holds no whole 4-byte element" explain --algo ring --size 3
check "--bw: '25' needs a unit" explain --bw 25
check "explain: 1 rank communicates nothing" explain --ranks 1
check "explain: 1 rank communicates nothing; give 2 or more ranks (--gpus)" explain --topo dgx1 --gpus 3
check "--min 1G is larger than --max 1K" explain --min 1G --max 1K
for f in "$dir"/*.json; do
  want=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1])).get('_expect',''))" "$f" 2>/dev/null)
  [ -z "$want" ] && want=$(basename "$f")
  check "$want" --topo "$f" -e 1K
done
check "--op" --op allsum
check "no algorithm 'tree' for allgather" --op allgather --algo tree
check "--algo" --algo nosuch
check "appears twice" --ring 0,1,1,2,3,4,5,6
check "does not exist" --ring 0,1,2,3,4,5,6,9
check "does not exist" --gpus 0,1,99
check "--gpus: '0-7' is ambiguous: write 0..7 for the GPUs from 0 to 7, or 0,7 for these two GPUs" --topo dgx1 --gpus 0-7
check "--gpus: range '5..2' runs backwards" --topo dgx1 --gpus 5..2
check "GPU 8 does not exist" --topo dgx1 --gpus 0..99999
check "-b/--minbytes" -b -5
check "larger than" -b 1M -e 1K
check "unknown size unit" -e 12Q
check "1 TiB" -e 4T
check "--stepfactor" -f 1
check "--datatype" -d float128
check "--redop" -o xor
check "--root" --op broadcast -r 9
check "--format" --format xml
check "neither a file nor a shipped topology" --topo nosuchmachine
check "--topo" --topo "torus:dims=4xq"
check "bandwidth" --topo "crossbar:ranks=4,bw=-5GB/s"
check "nics must be at least 8" --topo "cluster:nodes=2,node=hgx-h100,nics=4x400G"
check "kind 'nvlink2' is not ib" --topo "cluster:nodes=2,node=dgx1,nics=4x100G,kind=nvlink2"
check "fabric 'ring'" --topo "cluster:nodes=2,node=dgx1,nics=4x100G,fabric=ring"
check "COUNTxSPEED" --topo "cluster:nodes=2,node=dgx1,nics=fast"
check "missing 'nodes='" --topo "cluster:node=dgx1,nics=4x100G"
check "fabric 'mesh'" topo gen cluster --fabric mesh
check "unknown generator 'ring'" topo gen ring
check "--dims is required" topo gen torus
check "--model" --model quantum
check "not a topology file" --topo /tmp
check "--nccl-algo: unknown 'bogus'" --model nccl --nccl-algo bogus
check "--nccl-version: '2.x' is not an NCCL release" --model nccl --nccl-version 2.x
check "--nccl-algo tree: NCCL's tree runs allreduce" --model nccl --op allgather --nccl-algo tree
check "--nvls on: NVLS needs Hopper or newer GPUs (arch ampere)" --model nccl --topo machine:gpu=a100,gpus=8 --nvls on -b 1M -e 1M
check "--nvls on: NVLS needs an NVSwitch" --model nccl --topo machine:gpu=h100pcie,gpus=4 --gpu-arch hopper --nvls on -b 1M -e 1M
check "--nvls: unknown 'maybe'" --model nccl --topo machine:gpu=h100,gpus=8 --nvls maybe
check "--nccl-algo nvls: --nvls is off" --model nccl --topo machine:gpu=h100,gpus=8 --nvls off --nccl-algo nvls
check "--chunk-size" --op broadcast --chunk-size 0
check "--dims" --dims 3x3
check "--rings: allreduce halving_doubling is not ring-like" --topo dgx1 --algo halving_doubling --rings "0 3 2 1 5 6 7 4|0 1 3 7 5 4 6 2" -b 1M -e 1M
check "rings: 4096 GPUs is more than the ring search handles" rings --topo torus:dims=64x64
# Issue 17: crashes (exit 3, SIGFPE) and wrong answers on bad input; each now one line and exit 2.
tmp=$(mktemp -d)
echo '{"kind": "ccsim-params", "params": {"link_efficiency": {"nvlink2": 1e10}}}' >"$tmp/eff.json"
echo '{"kind": "ccsim-params", "model": 1, "params": {}}' >"$tmp/model.json"
echo '{"kind": "ccsim-params", "params": {"step_us": 1e400}}' >"$tmp/overflow.json"
check '"params.link_efficiency.nvlink2": expected a number in [0, 100]' --topo dgx1-v100 --params "$tmp/eff.json"
check '"model": expected a string, got 1' --topo dgx1-v100 --params "$tmp/model.json"
check "--params $tmp/overflow.json: malformed JSON: number overflow" --topo dgx1-v100 --params "$tmp/overflow.json"
check "more than the 4.61e+06 s that 64-bit picoseconds hold" --reduce-bw 1 -b 1G -e 1G
check "more than the 4.61e+06 s that 64-bit picoseconds hold" --topo crossbar:ranks=4,bw=1 -b 1G -e 1G
check "--sw-alpha: '1e6s' is more than 1 s per message" --sw-alpha 1e6s
check "--topo alpha: '2s' is more than 1 s" --topo crossbar:ranks=4,alpha=2s
check "ranks '8abc' is not a number" --topo crossbar:ranks=8abc
check "ranks '8.9' is not a number" --topo crossbar:ranks=8.9
check "'ranks' is given twice" --topo crossbar:ranks=8,ranks=4
check "ranks: 99999999999 is out of range" --topo crossbar:ranks=99999999999
check "crossbar: ranks must be between 1 and 1048576" --topo crossbar:ranks=16777216
check "more than 1048576 nodes" --topo torus:dims=1024x1024x2
check "explain: 65536 ranks is more than 256 for a sweep" explain --ranks 65536
check "explain: 65536 ranks is more than 4096 for one algorithm" explain --ranks 65536 --algo ring
check "--chunk-size: " --algo double_binary_tree -b 1T -e 1T --chunk-size 4
check "unknown generator 'crossbar\x0aranks=4\x1b[31m'" --topo "$(printf 'crossbar\nranks=4\033[31m'):x=1"
# Out of memory under a limit (bad_alloc was exit 3 "internal error"). A 2^20-GPU broadcast fits in 400 MB since
# the crossbar is implicit (~270 MiB); halving-doubling on it needs ~145 MiB resident and more address space (32 B
# of rank state, 48 B of channel state (calloc'd, 50 MB) and 32 B of channel totals per GPU, the events in
# flight), the program ~60 MB of address space (a small run fits in 150 MB).
[ "$sanitized" = 1 ] || { n=$((n+1)); err=$( (ulimit -v 120000; "$ccsim" --topo crossbar:ranks=1048576 --op allreduce --algo halving_doubling -b 1M -e 1M) 2>&1 >/dev/null); rc=$?
{ [ "$rc" -eq 2 ] && [[ "$err" == "ccsim: out of memory:"* ]]; } || { echo "FAIL: bad_alloc under ulimit -v: rc=$rc '$err'"; fails=$((fails+1)); }; }
# Work that used to grow with the size (double_binary_tree -b 1T: 38-60 s; explain --alpha 0us: 45 s) finishes
# in seconds alone (1-10 s of CPU); 30 CPU seconds bound the work whatever the machine's load (a wall-clock bound
# failed under a load of 15 on 2 cores), the 300 s wall bound only a wait.
fast() {
  [ "$sanitized" = 1 ] && return 0
  n=$((n+1))
  (ulimit -t 30; timeout 300 "$ccsim" "$@") >/dev/null 2>&1 || { echo "FAIL: ccsim $* did not finish in 30 CPU seconds with status 0"; fails=$((fails+1)); }
}
fast --algo double_binary_tree -b 1T -e 1T
fast rings --size 64G
fast explain --alpha 0us
# A non-UTF-8 topology file name in JSON output (nlohmann threw on dumping it: exit 3).
cp "$dir/../../../topologies/dgx1.json" "$tmp/$(printf '\xff').json"
fast --topo "$tmp/$(printf '\xff').json" -b 1M -e 1M --format json
rm -rf "$tmp"
# Found by the fuzz harnesses of the newer input surfaces (tests/fuzz) and their hand checks.
# A topology text of nothing but reply quote marks: one call per '>' level, a stack overflow (exit 139).
quotes=$(mktemp)
head -c 300000 /dev/zero | tr '\0' '>' >"$quotes"
check "$quotes: not a topology" topo import "$quotes"
check "$quotes: not a topology" --topo "$quotes" -e 1K
rm -f "$quotes"
# nccl-tests' -N and -s repeat the whole table, held until written: 10^10 rows (std::bad_alloc, exit 3).
check "-N,--run_cycles 1000 x -s,--stress_cycles 1000 x 10000 sizes" all_reduce_perf -b 1 -e 10000 -i 1 -N 1000 -s 1000
# A launcher rank past its process count printed nothing and exited 0.
OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_RANK=9 check "environment OMPI_COMM_WORLD_RANK: 9 is not below OMPI_COMM_WORLD_SIZE 8" all_reduce_perf
# The boundaries of the two refusals above (a mutation pass, scripts/MUTANTS.md): ranks count from 0, so rank 8 of 8
# is past the last; -s repeats the table as -N does, 1 x 1000 x 1001 sizes (-b 1 -e 1001 -i 1) is 1,001,000 rows.
OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_RANK=8 check "environment OMPI_COMM_WORLD_RANK: 8 is not below OMPI_COMM_WORLD_SIZE 8" all_reduce_perf
check "-N,--run_cycles 1 x -s,--stress_cycles 1000 x 1001 sizes x 1 types x 1 reductions x 1 roots is 1001000 rows" all_reduce_perf -b 1 -e 1001 -i 1 -s 1000
# Found by the input audit of the fuzz3 session (tests/fuzz/fuzz_trace_runs.cpp, fuzz_sbatch.cpp now fuzz these paths).
aud=$(mktemp -d)
# A JSON trace whose "tool" is not a string: nlohmann's type_error escaped (exit 3).
printf '{"tool": 1}\n' >"$aud/tool.json"
check "$aud/tool.json: no nccl-tests rows" compare --trace "$aud/tool.json" --topo crossbar:ranks=8 --op allreduce
# ccsim's JSON output with a root of 1e20 (converted to an int: undefined) or 2^32 + 8 ranks (wrapped to 8, exit 0).
json='{"tool": "ccsim", "op": "allreduce", "datatype": "float", "redop": "sum", "rows": [{"size": 8, "count": 2, "time_us": 1}]'
printf '%s, "root": 1e20, "ranks": 8}\n' "$json" >"$aud/root.json"
check "$aud/root.json: 'root' must be a whole number from -1 to 16777216" compare --trace "$aud/root.json" --topo crossbar:ranks=8
printf '%s, "root": 0, "ranks": 4294967304}\n' "$json" >"$aud/ranks.json"
check "$aud/ranks.json: 'ranks' must be a whole number from 0 to 16777216" compare --trace "$aud/ranks.json" --topo crossbar:ranks=8
# A launcher's nodes x tasks a node, two counts of up to 100000, overflowed an int: a wrapped --procs 1410065408.
check "srun -N 100000 --ntasks-per-node 100000: 10000000000 processes" srun -N 100000 --ntasks-per-node 100000 all_reduce_perf
check "srun -N 2 --ntasks-per-node 50001: 100002 processes" srun -N 2 --ntasks-per-node 50001 all_reduce_perf
printf '#!/bin/bash\n#SBATCH -N 100000\n#SBATCH --ntasks-per-node=100000\nmpirun all_reduce_perf -b 8 -e 8\n' >"$aud/job.sbatch"
check "job.sbatch: #SBATCH -N 100000 (line 2) x #SBATCH --ntasks-per-node 100000 (line 3): 10000000000 tasks" sbatch "$aud/job.sbatch"
# A script's variables doubled line by line (A=$A$A) or a large export copied for each test line: memory without bound
# (std::bad_alloc escaped sbatch_main, an abort, exit 134). Here 24 doublings (128 MiB) and 20 copies of 900 KB.
{ printf '#!/bin/bash\nA=xxxxxxxx\n'; for i in $(seq 24); do printf 'A=$A$A\n'; done; printf 'srun -n 8 all_reduce_perf -b 8 -e 8 $A\n'; } >"$aud/double.sbatch"
check "double.sbatch line 23: \$A (8388608 bytes): the script's variables expand to more than 16 MiB" sbatch "$aud/double.sbatch" --topo crossbar:ranks=8
{ printf '#!/bin/bash\nexport A=%0900000d\n' 0; for i in $(seq 20); do printf 'all_reduce_perf -b 8 -e 8 -g 8\n'; done; } >"$aud/env.sbatch"
check "env.sbatch line 21: the tests' environments" sbatch "$aud/env.sbatch" --topo crossbar:ranks=8
# A trace file's preamble is copied into each of its runs: a 480 KB preamble before 20,000 two-line runs (1.6 MB) made
# 9.6 GB of run texts (out of memory under a 4 GB limit; the OOM killer without one).
python3 -c "
import sys
sys.stdout.write(('# ' + 'p' * 78 + '\\n') * 6000)
sys.stdout.write('======\\n8 2 float sum -1 1.0 0.01 0.01 0 1.0 0.01 0.01 0\\n' * 20000)" >"$aud/runs.txt"
check "runs.txt: more than 552 runs, each read with the file's 486000-byte preamble" compare --trace "$aud/runs.txt" --topo crossbar:ranks=8 --op allreduce --ranks 8
# The same in a busbw summary: each table row a run with its own copy of the file's '#' lines (9.6 GB from 1.2 MB).
python3 -c "
import sys
sys.stdout.write('#   ./build/all_reduce_perf -b 16G -e 16G -g 8\\n' + ('# ' + 'p' * 78 + '\\n') * 6000)
sys.stdout.write('| collective | algo | busbw |\\n| :--- | :--- | ---: |\\n' + '| all-reduce | Ring | 367.2GBps |\\n' * 20000)" >"$aud/summary.txt"
check "summary.txt: busbw summary: 20000 table rows, each a run carrying the file's 6001 '#' lines: more than 256 MiB" compare --trace "$aud/summary.txt" --topo crossbar:ranks=8
rm -rf "$aud"
out=$(mktemp -d)
check "cannot open" --output "$out/no/such/dir/x.txt"
[ -z "$(ls -A "$out")" ] || { echo "FAIL: partial output left in $out"; fails=$((fails+1)); }
rm -rf "$out"
echo "bad inputs: $((n-fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
