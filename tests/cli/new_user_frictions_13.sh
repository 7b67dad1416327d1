#!/bin/bash
# Thirteenth user trial (an AMD Instinct user with a rocm-smi paste and rccl-tests lines with RCCL/ROCm variables, a
# performance engineer with an NCCL_DEBUG=INFO log asking what-ifs, a Slurm user with an sbatch job's nccl-tests runs).
# Each friction, fixed and kept fixed:
#  - HSA_FORCE_FINE_GRAIN_PCIE=1 (and every HSA_* the ROCm guides set beside RCCL's variables) was silently dropped:
#    not read, not named as not read;
#  - --why on an MI300X showed a row of dashes where RCCL's MSCCL all-pairs allreduce ran (before RCCL's tuner),
#    with no word on what chose it;
#  - compare's latency why line on one AMD box told the user to look at CUDA graphs and ib_send_lat (no network);
#  - a log's "NET/IB : Using [0]mlx5_0:1/IB ... [3]mlx5_3:1/IB" (4 devices where the description has 8) was not read;
#  - a what-if (--nvls off, --nccl-algo ring, --msccl off) was not named in the prediction's header, whose graph line
#    still offered NVLS-tree;
#  - a job's output with a test that died before its first row folded the next test's rows into the dead one: the
#    alltoall rows were compared as "sendrecv", every run "ok", exit 0; a failure printed after the last test's closing
#    lines (a test that died before its banner) was dropped;
#  - an sbatch script's srun/mpirun line pasted after ccsim got CLI11's "arguments were not expected", words reversed.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL|HSA|SLURM|OMPI|PMI)_[A-Z0-9_]*'); do unset "$v"; done
. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

W="$src/tests/data/wild_traces"
H100x2="machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"

# --- (a) AMD: a rocm-smi --showtopo paste of 8 MI300X (all XGMI, weight 15, hop 1) with --showproductname ---------
python3 - "$tmp/m.txt" <<'EOF'
import sys
n = 8
def mat(title, f):
    s = "=" * 20 + " " + title + " " + "=" * 20 + "\n       " + "".join(f"GPU{j:<10}" for j in range(n)) + "\n"
    return s + "".join(f"GPU{i}   " + "".join(f"{f(i, j):<13}" for j in range(n)) + "\n" for i in range(n)) + "\n"
out = "=" * 28 + " ROCm System Management Interface " + "=" * 28 + "\n"
out += mat("Weight between two GPUs", lambda i, j: 0 if i == j else 15)
out += mat("Hops between two GPUs", lambda i, j: 0 if i == j else 1)
out += mat("Link Type between two GPUs", lambda i, j: 0 if i == j else "XGMI")
out += "=" * 39 + " Numa Nodes " + "=" * 39 + "\n"
out += "".join(f"GPU[{i}]\t\t: (Topology) Numa Node: {i // 4}\nGPU[{i}]\t\t: (Topology) Numa Affinity: {i // 4}\n" for i in range(n))
out += "=" * 38 + " Product Info " + "=" * 38 + "\n"
out += "".join(f"GPU[{i}]\t\t: Card Series: \t\tAMD Instinct MI300X OAM\nGPU[{i}]\t\t: GFX Version: \t\tgfx942\n" for i in range(n))
out += "=" * 34 + " End of ROCm SMI Log " + "=" * 34 + "\n"
open(sys.argv[1], "w").write(out)
EOF
out=$(HSA_FORCE_FINE_GRAIN_PCIE=1 HSA_NO_SCRATCH_RECLAIM=1 RCCL_MSCCL_ENABLE=0 NCCL_MIN_NCHANNELS=112 \
      "$ccsim" all_reduce_perf --topo "$tmp/m.txt" -b 1G -e 1G -g 8 2>&1)
echo "$out" | grep -q "^# ccsim: ROCm runtime settings in the environment that ccsim does not read (predicted as if unset): HSA_FORCE_FINE_GRAIN_PCIE=1, HSA_NO_SCRATCH_RECLAIM=1$" ||
  bad "HSA_* variables not named as not read: $(echo "$out" | grep environment)"
echo "$out" | grep -q "read from the environment, as NCCL reads them: RCCL_MSCCL_ENABLE=0 (--msccl off)" || bad "RCCL_MSCCL_ENABLE=0 not read"
echo "$out" | grep -q "does not read (predicted as if unset): NCCL_MIN_NCHANNELS=112" || bad "NCCL_MIN_NCHANNELS not named as not read"
echo "$out" | grep -q "^# ccsim: model sees: .*MSCCL off (--msccl off, as RCCL_MSCCL_ENABLE=0" || bad "the model line does not name MSCCL off"

# --why: the sizes MSCCL's all-pairs takes (1 KiB-16 MiB on 8 GPUs, models/rccl.json) say what chose them.
why=$("$ccsim" --topo "$tmp/m.txt" --model nccl -b 32K -e 128M -f 64 --why)
echo "$why" | grep -qE "^ +32768 +- +- +- +not weighed: RCCL's MSCCL all-pairs allreduce, run before RCCL's tuner" ||
  bad "--why: the MSCCL row is dashes alone: $(echo "$why" | grep '^ *32768')"
echo "$why" | grep -E "^ +134217728 " | tail -1 | grep -q "not weighed" && bad "--why: a tuner-picked row says not weighed"
"$ccsim" --topo "$tmp/m.txt" --model nccl -b 32K -e 32K --why --format json | python3 -c '
import json, sys
c = json.load(sys.stdin)["rows"][0]["choice"]
assert c["weighed"] == [] and "MSCCL all-pairs" in c["outside_tuner"], c' || bad "--why json: no outside_tuner on the MSCCL row"

# compare on one AMD box: the latency floor's checks are HIP's and the xGMI hops', not CUDA graphs and ib_send_lat.
mi="$src/models/traces/mi300x-8gpu-allreduce-8B-8G-hisohara-aac8.txt"
lat=$("$ccsim" compare --topo "$tmp/m.txt" --model nccl --trace "$mi" | grep "^# why (latency band")
echo "$lat" | grep -q "launch cost (rccl-tests -G 1 runs HIP graphs), the protocol (NCCL_PROTO; LL for small sizes) and the xGMI hops set this floor" ||
  bad "AMD one-box latency line: $lat"
# One NVIDIA box: no network either; two nodes keep ib_send_lat.
one=$("$ccsim" compare --topo machine:gpu=h100 --model nccl --trace "$W/h100-p5-8gpu-allreduce-8B-16G-tagoutput-awsbatch.txt" | grep "^# why (latency band")
echo "$one" | grep -q "CUDA graphs), the protocol (NCCL_PROTO; LL for small sizes) and the NVLink/PCIe hops set" || bad "one H100 box latency line: $one"
two=$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$W/h100-xe9680-2node-16gpu-allreduce-8B-16G-ib400-nccl2262-nccltests309.txt" | grep "^# why (latency band")
echo "$two" | grep -q "and the network's latency (ib_send_lat) set this floor" || bad "two-node latency line lost ib_send_lat: $two"

# --- (b) an NCCL_DEBUG=INFO log of a 2-node run (INFO lines written here, SYNTHETIC; the table is issue 309's) -------
x="$W/h100-xe9680-2node-16gpu-allreduce-8B-16G-ib400-nccl2262-nccltests309.txt"
{
  echo "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
  echo "# Using devices"
  grep "^#  Rank" "$x"
  cat <<'EOF'
gpu-a:29262:29262 [0] NCCL INFO Bootstrap : Using enp27s0f0:10.1.0.11<0>
NCCL version 2.26.2+cuda12.8
gpu-a:29262:29301 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB enp27s0f0:10.1.0.11<0>
gpu-a:29262:29301 [0] NCCL INFO Using network IB
gpu-a:29262:29301 [0] NCCL INFO Channel 00/16 : 0 7 6 5 4 3 2 1 8 15 14 13 12 11 10 9
gpu-a:29262:29301 [0] NCCL INFO 16 coll channels, 0 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer
gpu-b:26633:26690 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB enp27s0f0:10.1.0.12<0>
EOF
  sed -n '/^#  *out-of-place/,$p' "$x"
} >"$tmp/info.log"
c8=$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$tmp/info.log")
echo "$c8" | grep -qF "# trace: NCCL INFO: NET/IB uses 4 device(s) on the first host logged (mlx5_0:1 mlx5_1:1 mlx5_2:1 mlx5_3:1); the description has 8 NIC(s) on the first GPU's host, and the prediction uses them (not applied: describe nics=4x<speed>" ||
  bad "the log's 4 IB devices against the description's 8 not said: $(echo "$c8" | grep 'NET/')"
"$ccsim" compare --topo machine:gpu=h100,nodes=2,nics=4x400G,kind=ib --model nccl --trace "$tmp/info.log" |
  grep -qF "uses 4 device(s) on the first host logged (mlx5_0:1 mlx5_1:1 mlx5_2:1 mlx5_3:1), as the description's 4 NIC(s) per host" || bad "4 devices on a 4-NIC description"
# The prediction itself is the description's: the same rows with or without the line.
grep -v "NET/IB" "$tmp/info.log" >"$tmp/info-nonet.log"
[ "$(echo "$c8" | grep '^ ')" = "$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$tmp/info-nonet.log" | grep '^ ')" ] ||
  bad "the NET/IB line moved the prediction"

# What-ifs name themselves in the graph line.
g=$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$tmp/info.log" --nvls off | grep "^# nccl graph:")
echo "$g" | grep -q ", NVLS off (--nvls off, as NCCL_NVLS_ENABLE=0: the NVLS graph above is not a candidate)$" || bad "--nvls off not named: $g"
g=$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$tmp/info.log" --nccl-algo ring | grep "^# nccl graph:")
echo "$g" | grep -q ", algorithm forced: ring (--nccl-algo, as NCCL_ALGO" || bad "--nccl-algo ring not named: $g"
g=$("$ccsim" compare --topo "$H100x2" --model nccl --trace "$tmp/info.log" | grep "^# nccl graph:")
echo "$g" | grep -q "forced\|NVLS off" && bad "no what-if given, one named: $g"

# --- (c) a Slurm job's output: four tests, the third died before its first row ---------------------------------------
blk() { sed -n '/^# nccl-tests version/,$p' "$W/h100-8gpu-$1-32M-16G-double-srun-nccl2292-nccltestscluster.txt"; }
{
  blk allgather; blk reducescatter
  sed -n '/^# nccl-tests version/,/^#  Rank  7/p' "$W/h100-8gpu-sendrecv-32M-16G-double-srun-nccl2292-nccltestscluster.txt"
  echo "cnode3-002: Test NCCL failure common.cu:1279 'unhandled system error (run with NCCL_DEBUG=INFO for details) / '"
  echo " .. cnode3-002 pid 4181193: Test failure common.cu:1100"
  echo "srun: error: cnode3-002: task 0: Exited with exit code 2"
  blk alltoall
} >"$tmp/slurm-77.out"
"$ccsim" compare --topo machine:gpu=h100 --model nccl --trace "$tmp/slurm-77.out" --summary >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" -eq 2 ] || bad "a job with a dead test: exit $rc, want 2"
grep -qE "^$tmp/slurm-77.out +3/4 .*ERROR: .*Test NCCL failure" "$tmp/out" || bad "the dead test is not run 3 of 4 with its failure: $(grep -F '/4' "$tmp/out")"
grep -qE "^$tmp/slurm-77.out +4/4 +alltoall +8 .* ok$" "$tmp/out" || bad "the test after the dead one is not an alltoall of its own: $(grep -F '4/4' "$tmp/out")"
grep -qE "^$tmp/slurm-77.out +[0-9]/[0-9] +sendrecv" "$tmp/out" && bad "alltoall rows compared as sendrecv"
tail -1 "$tmp/out" | grep -q "1 file(s), 4 run(s): 3 ok, 0 below, 0 without a verdict, 1 not compared; exit status 2" || bad "tally: $(tail -1 "$tmp/out")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "Test NCCL failure" "$tmp/err" || bad "stderr: $(cat "$tmp/err")"
# The line named is the file's (it was counted from the run's own start: line 14 for the file's 82).
n=$(grep -n "Test NCCL failure" "$tmp/slurm-77.out" | cut -d: -f1)
grep -q "(run 3 of 4): the run failed before its first row (line $n: " "$tmp/err" || bad "not the file's line $n: $(cat "$tmp/err")"
grep -c "(run 3 of 4)" "$tmp/err" | grep -qx 1 || bad "the run named twice: $(cat "$tmp/err")"
refused_one_line "(run 3 of 4; compare the others with --run N, or every run with --summary" compare --topo machine:gpu=h100 --model nccl --trace "$tmp/slurm-77.out"
"$ccsim" compare --topo machine:gpu=h100 --model nccl --trace "$tmp/slurm-77.out" --run 4 | grep -q "^# prediction: alltoall" || bad "--run 4 is not the alltoall"
# A test that died before its banner: its failure after the last test's closing lines is a run of its own.
{ blk allgather; echo "srun: error: execve(): sendrecv_perf: No such file or directory"; echo "cnode3-002: Test failure common.cu:1100"; } >"$tmp/slurm-78.out"
"$ccsim" compare --topo machine:gpu=h100 --model nccl --trace "$tmp/slurm-78.out" --summary >"$tmp/out" 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] && grep -qE "^$tmp/slurm-78.out +2/2 .*ERROR" "$tmp/out" || bad "a failure after the last closing lines dropped (exit $rc): $(tail -2 "$tmp/out")"

# The script's launcher line, pasted after ccsim: srun's tasks (-N x --ntasks-per-node, or -n) are the processes.
"$ccsim" all_reduce_perf --topo "$H100x2" --procs 16 -b 1G -e 1G -g 1 >"$tmp/procs" 2>&1 || bad "--procs 16 failed"
"$ccsim" srun -N 2 --ntasks-per-node=8 --gpus-per-node=8 '${NCCL_TESTS}/all_reduce_perf' -b 1G -e 1G -g 1 --topo "$H100x2" >"$tmp/srun" 2>&1; rc=$?
[ "$rc" -eq 0 ] || bad "srun line: exit $rc: $(head -2 "$tmp/srun")"
grep -q "^# ccsim: 16 ranks = 16 processes (srun -N 2 --ntasks-per-node 8) x nThread 1 x nGpus 1" "$tmp/srun" || bad "srun's tasks not named: $(grep 'ranks =' "$tmp/srun")"
[ "$(grep '^ ' "$tmp/srun")" = "$(grep '^ ' "$tmp/procs")" ] || bad "srun -N 2 --ntasks-per-node=8 predicts otherwise than --procs 16"
"$ccsim" srun -n 16 all_reduce_perf -b 1G -e 1G --topo "$H100x2" | grep -q "16 processes (srun -n 16)" || bad "srun -n 16"
# mpirun's -np and -x: the environment the launcher passes is the test's.
m=$("$ccsim" mpirun -np 16 --mca pml ucx -x NCCL_ALGO=Ring -x NCCL_IB_HCA=mlx5_0 all_reduce_perf_mpi -b 1G -e 1G -g 1 --topo "$H100x2" 2>&1)
echo "$m" | grep -q "16 processes (mpirun -np 16)" || bad "mpirun -np 16: $(echo "$m" | grep 'ranks =')"
echo "$m" | grep -q "as NCCL reads them: NCCL_ALGO=Ring (--nccl-algo ring)" || bad "mpirun -x NCCL_ALGO=Ring not read"
echo "$m" | grep -q "does not read (predicted as if unset): NCCL_IB_HCA=mlx5_0" || bad "mpirun -x NCCL_IB_HCA not named"
"$ccsim" srun -N 2 --ntasks-per-node=8 --export=ALL,NCCL_NVLS_ENABLE=0 all_reduce_perf -b 1G -e 1G --topo "$H100x2" |
  grep -q "NCCL_NVLS_ENABLE=0 (--nvls off)" || bad "srun --export=ALL,NCCL_NVLS_ENABLE=0 not read"
"$ccsim" mpirun -H gpu-a:8,gpu-b:8 all_reduce_perf -b 1G -e 1G --topo "$H100x2" | grep -q "16 processes (mpirun -H gpu-a:8,gpu-b:8)" || bad "mpirun -H a:8,b:8"
"$ccsim" mpirun -N 8 -H gpu-a,gpu-b all_reduce_perf -b 1G -e 1G --topo "$H100x2" | grep -q "16 processes (mpirun -N 8 -H gpu-a,gpu-b)" || bad "mpirun -N 8 -H a,b"
# Open MPI's -npernode and -nolocal are words of their own, not -n with a glued value (mutation pass 4): 2 hosts x 8 = 16.
"$ccsim" mpirun -npernode 8 -nolocal -H gpu-a,gpu-b all_reduce_perf -b 1G -e 1G --topo "$H100x2" |
  grep -q "16 processes (mpirun -N 8 -H gpu-a,gpu-b)" || bad "mpirun -npernode 8 -nolocal -H a,b"
refused_one_line "mpirun: no process count among its words (-np N, -H host:slots,..., or -N per host with -H): give -np N" mpirun --mca pml ucx all_reduce_perf -b 1G -e 1G --topo "$H100x2"
refused_one_line "ccsim: srun: starts no nccl-tests program among its words" srun -N 2 hostname
refused_one_line "srun -N 2-4: not a count of nodes" srun -N 2-4 all_reduce_perf -b 1G -e 1G --topo "$H100x2"
refused_one_line "mpirun -np: needs a value" mpirun -np all_reduce_perf -b 1G -e 1G --topo "$H100x2"

[ "$fails" -eq 0 ] && echo "all new-user friction checks (13th trial) pass"
exit $((fails > 0))
