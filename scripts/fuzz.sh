#!/bin/bash
# Builds the libFuzzer harnesses (tests/fuzz, clang + ASan + UBSan, in build-fuzz/) and runs each for
# SECONDS (default 60), seeded from the shipped files and tests/data. Prints, per parser, the inputs run,
# and exits 1 if any harness found a crash, a sanitizer report, a leak or a slow input (> 25 s).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]    e.g. scripts/fuzz.sh 10; scripts/fuzz.sh 300 trace
# Harnesses run FUZZ_JOBS at a time (default: the number of cores), each on its own core for SECONDS: libFuzzer
# runs one process, so one at a time left a core idle for the whole run.
# Targets: topology_json trace scenario params nccl_tables calibrate generator_spec units sweep_plan topo_m nccl_xml
# amd_smi topo_file log_lines perf_args sbatch trace_runs evidence scenario_args.
# Needs Debian's clang and libclang-rt-14-dev (scripts/setup.sh --tests installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
shift || true
all=(topology_json trace scenario params nccl_tables calibrate generator_spec units sweep_plan topo_m nccl_xml amd_smi topo_file
     log_lines perf_args sbatch trace_runs evidence scenario_args)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
jobs_max="${FUZZ_JOBS:-$(nproc)}"
[[ "$jobs_max" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "fuzz.sh: FUZZ_JOBS must be a whole number from 1 to 9999" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang++ (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

# ccache only for a new build-fuzz: giving an existing tree another launcher changes every compile command, and
# ninja then rebuilds everything (.ci/run configures build-fuzz without one for its suite, then runs this).
launcher=()
[ ! -f build-fuzz/CMakeCache.txt ] && command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCCSIM_FUZZ=ON -DCCSIM_BUILD_TESTS=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
# The NCCL XML harness is also seeded with the shipped machines as `ccsim topo export --nccl-xml` writes them, and
# trace_runs with ccsim's own outputs: both need build-fuzz/ccsim.
xml_tool=()
[[ " ${targets[*]} " == *" nccl_xml "* || " ${targets[*]} " == *" trace_runs "* ]] && xml_tool=(ccsim)
cmake --build build-fuzz -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") "${xml_tool[@]}" >/dev/null

# Seeds: every shipped and test file of the parser's format (copied, so the fuzzer never writes to them).
seed() { # target, files...
  local dir="build-fuzz/seeds/$1"; shift
  rm -rf "$dir"; mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | tr '/' '_')"; done
  return 0
}
lines() { # target, then one seed per argument
  local dir="build-fuzz/seeds/$1" i=0; shift
  rm -rf "$dir"; mkdir -p "$dir"
  for s in "$@"; do printf '%s' "$s" >"$dir/$i"; i=$((i+1)); done
}
seed topology_json topologies/*.json topologies/generator/*.json tests/data/bad/*.json
# The keys read since the twenty-third session, in no shipped file: '_' comments at every level (link_types too), a
# link's "duplex" budget.
printf '%s\n' '{"_note": "x", "name": "t", "nodes": [{"name": "g0", "kind": "gpu", "_n": 1}, {"name": "g1", "kind": "gpu"},' \
  '{"name": "sw", "kind": "pcie_switch"}], "link_types": {"_note": "y", "pcie4": {"bw": "32GB/s", "latency": "1us", "_s": 2}},' \
  '"links": [{"a": "g0", "b": "sw", "type": "pcie4", "duplex": "40GB/s", "_l": 3}, {"a": "g1", "b": "sw", "type": "pcie4", "lanes": 2}]}' \
  >build-fuzz/seeds/topology_json/comments-duplex.json
seed trace models/traces/*.txt tests/data/bad_traces/*.txt
seed calibrate models/traces/*.txt tests/data/bad_traces/*.txt
seed scenario scenarios/*.json tests/data/bad_scenarios/*.json
seed params models/fit-*.json
seed nccl_tables models/nccl.json models/rccl.json
seed evidence models/evidence.json
seed sweep_plan docs/sweep-example.json
lines generator_spec "crossbar:ranks=8" "crossbar:ranks=8,bw=25GB/s,alpha=1us" "torus:dims=4x4,bw=100GB/s,alpha=1us" \
      "torus:dims=2x3x4" "cluster:nodes=2,node=hgx-h100,nics=8x400G" "cluster:nodes=2,node=dgx1,nics=4x100G,fabric=fattree,kind=roce" \
      "machine:gpu=h100" "machine:gpu=a100,gpus=4,intra=pcie,p2p=off" "machine:gpu=h200,nodes=2,nics=8x400G" \
      "machine:gpu=h100,nodes=4,nics=8 x 400G,fabric=rail,nic_at=cpu" "machine:gpu=l40s,gpus=4,nics=2x200G,nic_at=numa,sockets=2" \
      "machine:gpu=a100,nodes=4,nics=8x200G,fabric=fattree,leaf_ports=8,oversub=2:1,kind=RoCEv2" \
      "machine:gpu=gb200-nvl72,nodes=2,nics=4x800G" "machine:gpu=mi300x,nodes=2,nics=8x400G,sharp=1" \
      "machine:gpu=rtx4090,gpus=8,cpu=amd,pcie_switch=off,gpus_per_switch=4" "machine:gpu=rtx3090,gpus=2,bridge=2way" \
      "machine:gpu=mi250x,gpus=8" "machine:gpu=h100pcie,gpus=4,intra=pcie,p2p=off" "machine:gpu=H100 NVL,gpus=2" \
      "cluster:nodes=2,node=hgx-h100,nics=8x400G,fabric=rail-optimised,kind=gib" \
      "machine:instance=p5.48xlarge" "machine:instance=p5en.48xlarge,nodes=2" "machine:instance=a3-megagpu-8g,nodes=2,gpus=4" \
      "machine:instance=p6-b200.48xlarge,nodes=2,nics=8x400G,kind=efa" "machine:gpu=h100,nodes=2,nics=32x100G,instance=p5.48xlarge" \
      "machine:gpu=a100,gpus=4,intra=pcie,pcie_duplex=40GB/s" "machine:gpu=l40s,gpus=8,pcie_duplex=50GB/s,nodes=2,nics=4x400G" \
      "cluster:nodes=2,node=hgx-h100,instance=p5.48xlarge" "machine:gpu=a100,nodes=2,instance=p4d.24xlarge,kind=efa" \
      "machine:gpu=mi300x,nodes=2,nics=8x400G,kind=pollara" "cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=Pollara-400"
seed topo_m tests/data/import/*topo-m*.txt
seed amd_smi tests/data/import/rocm-smi-*.txt tests/data/import/*amd-smi-*.txt
seed nccl_xml tests/data/import/*.xml
if [ ${#xml_tool[@]} -gt 0 ]; then # (a shipped machine that does not name its GPU kind has no XML: skipped)
  for t in topologies/*.json machine:gpu=h100,nodes=2,nics=8x400G machine:gpu=mi300x machine:gpu=l40s,gpus=4,nics=2x200G; do
    build-fuzz/ccsim topo export --nccl-xml "$t" -o "build-fuzz/seeds/nccl_xml/$(basename "$t" .json | tr ':,=' '___').xml" 2>/dev/null || true
  done
fi
seed topo_file tests/data/import/* topologies/*.json
seed log_lines models/traces/*.txt tests/data/wild_traces/*.txt
# The settings read since the twenty-second session, as NCCL logs them (one is in no shipped trace: NCCL_P2P_DISABLE).
printf '%s\n' 'host:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1' \
  'host:1:2 [0] NCCL INFO NCCL_NVLS_CHUNKSIZE set by environment to 0x80000.' \
  'host:1:2 [0] NCCL INFO NCCL_NVLSTREE_MAX_CHUNKSIZE set by environment to -2.' \
  '[1,0]<stdout>:host:1:2 [0] NCCL INFO NET/OFI Setting NCCL_NVLS_CHUNKSIZE to 512KiB' \
  '1st MCA variable: btl_tcp_if_include' '2nd MCA variable: btl_tcp_if_exclude' \
  'host:1:2 [0] NCCL INFO NCCL_MIN_CTAS set by environment to 8.' 'host:1:2 [0] NCCL INFO NCCL_MAX_CTAS set by environment to 0x10.' \
  'host:1:2 [0] NCCL INFO NCCL_MIN_NRINGS set by environment to -3.' 'host:1:2 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 99999999999999999999.' \
  >build-fuzz/seeds/log_lines/new-settings.txt
# One argument per line (environment variables as NAME=VALUE lines), as tests/fuzz/fuzz_perf_args.cpp reads them.
lines perf_args "$(printf '%s\n' all_reduce_perf -b 8 -e 128M -f 2 -g 8)" \
      "$(printf '%s\n' broadcast_perf -g 4 -r 1 -b 1M -e 3M -i 1M)" \
      "$(printf '%s\n' all_gather_perf -b 1K -e 4K -f 2 -t 2 -g 4 -c 0 -C 1 -N 2)" \
      "$(printf '%s\n' all_reduce_perf --topo machine:gpu=h100,nodes=2,nics=8x400G -g 8 OMPI_COMM_WORLD_SIZE=2 NCCL_ALGO=Tree)" \
      "$(printf '%s\n' all_reduce_perf -g 1 --procs 8 NCCL_TESTS_SPLIT_MASK=0x3)" \
      "$(printf '%s\n' all_reduce_perf -g 2 PMI_SIZE=4 PMI_RANK=0 'NCCL_TESTS_SPLIT=MOD 2')" \
      "$(printf '%s\n' alltoall_perf -g 8 -u 0xff,0xff -O 0 -s 2 -Y fine)" \
      "$(printf '%s\n' sendrecv_perf -g 2 NCCL_PROTO=LL128 NCCL_P2P_DISABLE=1 NCCL_NVLS_ENABLE=0)" \
      "$(printf '%s\n' hypercube_perf -g 6)" \
      "$(printf '%s\n' reduce_scatter_perf --ngp=8 --minb 1M -d bfloat16 -o max --model fifo)" \
      "$(printf '%s\n' all_reduce_perf CCSIM_TOPO=machine:gpu=mi300x -g 8 RCCL_MSCCL_ENABLE=1 -d fp8_e4m3)" \
      "$(printf '%s\n' all_reduce_perf --topo tests/data/import/h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt CCSIM_GPU=h100 -g 8)" \
      "$(printf '%s\n' gather_perf -g 8 -b 0 -e 1G -f 4 SLURM_STEP_NUM_TASKS=1 -x 1 -G 1 -a 3)"
# Launcher lines as `ccsim srun ...` / `ccsim mpirun ...` take them (read_launcher in sim/cli/perf_command.cpp).
for s in "$(printf '%s\n' srun -N 2 --ntasks-per-node=8 all_reduce_perf -b 8 -e 8 -g 1)" \
         "$(printf '%s\n' srun -n 16 --export=ALL,NCCL_ALGO=Ring ./build/all_gather_perf -b 1M -e 1M)" \
         "$(printf '%s\n' mpirun -np 16 -x NCCL_PROTO=Simple -x LD_LIBRARY_PATH all_reduce_perf_mpi -b 8 -e 128M -f 2 -g 1)" \
         "$(printf '%s\n' mpirun -H a:8,b:8 --bind-to none all_reduce_perf -g 1)" \
         "$(printf '%s\n' mpirun -H a,b -N 8 -mca pml ucx alltoall_perf -g 1)" \
         "$(printf '%s\n' mpiexec -n 8 -genv NCCL_ALGO Tree reduce_scatter_perf -g 1)" \
         "$(printf '%s\n' srun -N2 -n16 env NCCL_NVLS_ENABLE=0 all_reduce_perf -b 1M -e 4M -g 1 --topo machine:gpu=h100,nodes=2,nics=8x400G)"; do
  printf '%s' "$s" >"build-fuzz/seeds/perf_args/launcher-$(echo "$s" | cksum | cut -d' ' -f1)"
done
# Batch scripts: the shipped example and every script tests/cli/sbatch_script.sh writes (its here-documents).
seed sbatch docs/examples/*.sbatch
awk -v dir=build-fuzz/seeds/sbatch '/<<.EOF.$/ && /sbatch/ {n++; f = dir "/test-" n; next} /^EOF$/ {f = ""} f {print > f}' \
    tests/cli/sbatch_script.sh
i=0 # and the one-line scripts it writes with printf '...' >"$tmp/NAME.sbatch"
while IFS= read -r f; do
  printf -- "$f" >"build-fuzz/seeds/sbatch/printf-$i" 2>/dev/null || true; i=$((i+1))
done < <(sed -n "s/^printf '\(.*\)' >\"\$tmp\/[a-z0-9]*\.sbatch\"$/\1/p" tests/cli/sbatch_script.sh)
# Files compare reads as traces: nccl-tests outputs (several runs in a job's file), the wild ones, rccl-tests result
# files, busbw summaries, ccsim's own outputs and nccl-tests' JSON reports, as tests/data holds them.
seed trace_runs models/traces/*.txt tests/data/wild_traces/*.txt tests/data/bad_traces/*.txt tests/data/option_traces/*.txt \
     tests/data/option_traces/*.json tests/data/*.txt
if [[ " ${targets[*]} " == *" trace_runs "* ]]; then
  rs='{"numCycle":1,"name":"all_reduce_perf","gpus":8,"size":%s,"type":"float","redop":"sum","inPlace":%s,"time":%s,"algBw":1.0,"busBw":1.75,"wrong":"0"}'
  printf "[$rs,\n$rs,\n$rs]\n" 1024 0 10.5 1024 1 10.1 2048 0 12.0 >build-fuzz/seeds/trace_runs/rccl-tests.json
  printf 'numCycle,collective,gpus,size,type,redop,inplace,time,algbw,busbw,#wrong\n1,all_reduce_perf,8,1024,float,sum,0,10.5,0.1,0.17,0\n1,all_reduce_perf,8,1024,float,sum,1,10.1,0.1,0.17,0\n' \
    >build-fuzz/seeds/trace_runs/rccl-tests.csv
  cp build-fuzz/seeds/log_lines/new-settings.txt build-fuzz/seeds/trace_runs/new-settings.txt 2>/dev/null || true
  printf '# hardware: 1 node, 8x H200\n#   ./build/all_reduce_perf -b 16G -e 16G -g 8\n| collective | algo | busbw |\n| :--- | :--- | ---: |\n| all-reduce, `NCCL_NVLS_ENABLE=0` | Ring | 367.2GBps |\n| all-gather | Ring | 361.4GBps |\n' \
    >build-fuzz/seeds/trace_runs/busbw-summary.txt
  for fmt in table csv json; do # ccsim's own outputs, as compare reads them back
    build-fuzz/ccsim --topo dgx1 --op allgather -b 8 -e 64K --format "$fmt" >"build-fuzz/seeds/trace_runs/ccsim.$fmt" 2>/dev/null || true
  done
fi
# `ccsim scenario FILE` flags, one per line (tests/fuzz/fuzz_scenario_args.cpp; a first line naming a shipped scenario picks it).
lines scenario_args "$(printf '%s\n' --model nccl --nvls off --collnet off)" \
      "$(printf '%s\n' gpt_zero_2x8_a100.json --model nccl --nccl-algo ring --nccl-proto '^LL128' --nccl-version 2.18.3)" \
      "$(printf '%s\n' resnet50_dgx1_vs_pcie.json --bucket-size 64M --no-overlap --p2p off)" \
      "$(printf '%s\n' --topo machine:gpu=h100,gpus=8 --model nccl --p2p-level PIX --params none)" \
      "$(printf '%s\n' --topo hgx-a100 --model flow --params models/params-nccl-default.json --allow-oversubscribed-memory)" \
      "$(printf '%s\n' resnet50_ps_dgx1.json --model store_forward --msccl off --nccl-collnet auto --nccl-nvls on)" \
      "$(printf '%s\n' --topo machine:gpu=mi300x,gpus=8 --model nccl --msccl off --p2p-level 3 --gpu mi300x)"
lines units "25GB/s" "100Gbps" "12.5e9" "1us" "500ns" "0.7 us" "128M" "1G" "4KiB" "8" "-1" "1e400" "0x10"

mkdir -p build-fuzz/artifacts
fuzz_one() { # target: runs it, leaving its log and exit status in build-fuzz/
  local t="$1" rc=0
  mkdir -p "build-fuzz/corpus/$t"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "build-fuzz/fuzz_$t" "build-fuzz/corpus/$t" "build-fuzz/seeds/$t" -max_total_time="$secs" -timeout=25 \
    -rss_limit_mb=2560 -max_len=65536 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" \
    >"build-fuzz/fuzz-$t.log" 2>&1 || rc=$?
  echo "$rc" >"build-fuzz/fuzz-$t.rc"
}
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs_max" ]; then wait -n || true; running=$((running - 1)); fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait

total=0; failed=()
printf '%-16s %12s %10s  %s\n' parser inputs exec/s result
for t in "${targets[@]}"; do
  log="build-fuzz/fuzz-$t.log"
  rc=$(cat "build-fuzz/fuzz-$t.rc" 2>/dev/null || echo "?")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  result="ok"
  if [ "$rc" != 0 ] || grep -qE "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "$log"; then
    result="FAILED (exit $rc; see $log and build-fuzz/artifacts/$t-*)"
    failed+=("$t")
  fi
  printf '%-16s %12s %10s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$result"
  total=$((total + ${runs:-0}))
done
echo "fuzz.sh: ${#targets[@]} harness(es), $secs s each, $jobs_max at a time, $total inputs, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
