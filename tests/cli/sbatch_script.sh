#!/bin/bash
# `ccsim sbatch job.sbatch --topo ...`: a Slurm batch script's nccl-tests lines, each predicted as its line pasted after
# ccsim would be, with the job's #SBATCH allocation (srun inherits -N/-n/--ntasks-per-node, mpirun the job's tasks),
# the script's exports (NCCL_* read as -x passes them, the others named as not read) and variables. What the shell
# decides at run time (a loop, an if, a command substitution, an unset variable) is refused in one line naming the
# script's line, exit 2, nothing on stdout. Expected task counts and environments are by hand from the scripts below.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL|HSA|SLURM|OMPI|PMI|CCSIM)_[A-Z0-9_]*'); do unset "$v"; done
. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...
H="machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"

# --- a job of two tests: the header's 2 nodes x 8 tasks, exports, a variable in the line --------------------------
cat >"$tmp/job.sbatch" <<'EOF'
#!/bin/bash
#SBATCH --job-name=nccl
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8 --gpus-per-node=8
#SBATCH --exclusive

module load cuda
export NCCL_ALGO=Ring
export NCCL_IB_HCA=mlx5_0,mlx5_1
export OMP_NUM_THREADS=1
TESTS=/opt/nccl-tests/build
SIZES="-b 1G -e 1G"

srun ${TESTS}/all_reduce_perf $SIZES -g 1 2>&1 | tee ar.log
srun -N $SLURM_NNODES --ntasks-per-node=1 \
     $TESTS/all_gather_perf -b 1G -e 1G -g 8 > ag.log
EOF
"$ccsim" sbatch "$tmp/job.sbatch" --topo "$H" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] || bad "job.sbatch: exit $rc: $(head -2 "$tmp/err")"
[ "$(grep -c '^# Collective test concluded' "$tmp/out")" -eq 2 ] || bad "not two predictions: $(grep -c concluded "$tmp/out")"
grep -q "^# ccsim: $tmp/job.sbatch line 14: srun \${TESTS}/all_reduce_perf \$SIZES -g 1 2>&1 | tee ar.log; srun -N 2 --ntasks-per-node 8 from the job's #SBATCH --nodes 2 (line 3), #SBATCH --ntasks-per-node 8 (line 4)$" "$tmp/out" ||
  bad "line 14 not named with its inherited counts: $(grep 'line 14' "$tmp/out")"
grep -q "^# ccsim: 16 ranks = 16 processes (srun -N 2 --ntasks-per-node 8) x nThread 1 x nGpus 1" "$tmp/out" || bad "the first test is not 16 tasks"
grep -q "^# ccsim: $tmp/job.sbatch line 15: srun -N \$SLURM_NNODES --ntasks-per-node=1" "$tmp/out" || bad "line 15 (continued) not named"
grep -q "^# ccsim: 16 ranks = 2 processes (srun -N 2 --ntasks-per-node 1) x nThread 1 x nGpus 8" "$tmp/out" || bad "the second test is not 2 tasks x 8 GPUs"
[ "$(grep -c 'as NCCL reads them: NCCL_ALGO=Ring (--nccl-algo ring)' "$tmp/out")" -eq 2 ] || bad "export NCCL_ALGO=Ring not read for both"
[ "$(grep -c 'does not read (predicted as if unset): NCCL_IB_HCA=mlx5_0,mlx5_1' "$tmp/out")" -eq 2 ] || bad "NCCL_IB_HCA not named as not read"
grep -q "^# ccsim: $tmp/job.sbatch exports that ccsim does not read (predicted as if unset): OMP_NUM_THREADS=1 (line 10)$" "$tmp/out" || bad "OMP_NUM_THREADS not named"
grep -q "the job asks 8 GPU(s) a node: #SBATCH --gpus-per-node 8 (line 4); the machine predicted is --topo's" "$tmp/out" || bad "--gpus-per-node not named"
# The same rows as the pasted lines (an independent route: the launcher line typed by hand, the variable by hand).
NCCL_ALGO=Ring "$ccsim" srun -N 2 --ntasks-per-node=8 all_reduce_perf -b 1G -e 1G -g 1 --topo "$H" >"$tmp/one" 2>&1
NCCL_ALGO=Ring "$ccsim" srun -N 2 --ntasks-per-node=1 all_gather_perf -b 1G -e 1G -g 8 --topo "$H" >>"$tmp/one" 2>&1
[ "$(grep '^ ' "$tmp/out")" = "$(grep '^ ' "$tmp/one")" ] || bad "the script's rows differ from its lines pasted"
# The job's output is a trace of two runs: compare reads it back with zero error.
"$ccsim" compare --trace "$tmp/out" --model nccl --topo "$H" --nccl-algo ring --summary >"$tmp/cmp" 2>&1 || bad "compare of the job's output: $(tail -1 "$tmp/cmp")"
grep -q "1 file(s), 2 run(s): 2 ok" "$tmp/cmp" || bad "compare: $(tail -1 "$tmp/cmp")"

# sbatch's command line wins over the header (-N 4 on a 4-node machine); mpirun takes the job's tasks; -n wins.
cat >"$tmp/mpi.sbatch" <<'EOF'
#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node 8
mpirun --mca pml ucx -x NCCL_NVLS_ENABLE=0 all_reduce_perf_mpi -b 1G -e 1G
srun -n 4 all_reduce_perf -b 1G -e 1G -g 4
NCCL_PROTO=Simple all_reduce_perf -b 1G -e 1G -g 8
EOF
o=$("$ccsim" sbatch "$tmp/mpi.sbatch" --topo "$H" 2>&1)
echo "$o" | grep -q "16 processes (mpirun -np 16)" || bad "mpirun in the job: not 16"
echo "$o" | grep -q "mpirun -np 16 from the job's #SBATCH -N 2 (line 2), #SBATCH --ntasks-per-node 8 (line 3)" ||
  bad "mpirun's count not said: $(echo "$o" | grep 'line 4:')"
echo "$o" | grep -q "NCCL_NVLS_ENABLE=0 (--nvls off)" || bad "mpirun -x in a script not read"
echo "$o" | grep -q "16 ranks = 4 processes (srun -n 4) x nThread 1 x nGpus 4" || bad "srun -n 4 does not win"
echo "$o" | grep -q "8 ranks = nThread 1 x nGpus 8" || bad "a bare test line is not one process"
echo "$o" | grep -q "NCCL_PROTO=Simple (--nccl-proto Simple)" || bad "a line's NAME=VALUE prefix not read"
[ "$(echo "$o" | grep -c '(--nvls off)')" -eq 1 ] || bad "mpirun -x leaked into the next line"
"$ccsim" sbatch -N 4 "$tmp/mpi.sbatch" --topo machine:gpu=h100,nodes=4,nics=8x400G,kind=ib 2>&1 |
  grep -q "32 processes (mpirun -np 32)" || bad "ccsim sbatch -N 4 does not win over #SBATCH -N 2"
# #SBATCH after the first command is not read (sbatch stops there); --ntasks is srun's -n.
printf '#!/bin/sh\n#SBATCH --ntasks=16\necho start\n#SBATCH --ntasks=2\nsrun all_reduce_perf -b 1G -e 1G\n' >"$tmp/late.sbatch"
"$ccsim" sbatch "$tmp/late.sbatch" --topo "$H" | grep -q "16 processes (srun -n 16)" || bad "an #SBATCH after the first command read"
# --gres=gpu:h100:8 is the GPUs a node.
printf '#SBATCH -N 2 --ntasks-per-node=8 --gres=gpu:h100:8\nsrun all_reduce_perf\n' >"$tmp/gres.sbatch"
"$ccsim" sbatch "$tmp/gres.sbatch" --topo "$H" | grep -q "the job asks 8 GPU(s) a node: #SBATCH --gres gpu:h100:8 (line 1);" || bad "--gres=gpu:h100:8"

# --- refusals: one line naming the script and its line, exit 2, no stdout --------------------------------------
printf '#SBATCH -N 2\nfor s in 1G 2G; do\n  srun all_reduce_perf -b $s -e $s\ndone\n' >"$tmp/loop.sbatch"
refused_one_line "$tmp/loop.sbatch line 3: a test inside 'for' (line 2)" sbatch "$tmp/loop.sbatch" --topo "$H"
printf '#SBATCH -N 2\nfor s in 1G 2G; do srun all_reduce_perf -b $s -e $s; done\n' >"$tmp/loop1.sbatch"
refused_one_line "$tmp/loop1.sbatch line 2: a test inside 'for' (line 2)" sbatch "$tmp/loop1.sbatch" --topo "$H"
printf 'SIZE=$(cat size.txt)\nsrun -n 16 all_reduce_perf -b $SIZE -e $SIZE\n' >"$tmp/subst.sbatch"
refused_one_line "$tmp/subst.sbatch line 2: \$SIZE (set on line 1 from a command substitution" sbatch "$tmp/subst.sbatch" --topo "$H"
printf 'srun -n 16 all_reduce_perf -b $MYSIZE\n' >"$tmp/unset.sbatch"
refused_one_line "$tmp/unset.sbatch line 1: \$MYSIZE, set neither in the script" sbatch "$tmp/unset.sbatch" --topo "$H"
printf 'srun -N $SLURM_NNODES --ntasks-per-node=$SLURM_NTASKS_PER_NODE all_reduce_perf\n' >"$tmp/nohdr.sbatch"
refused_one_line "line 1: \$SLURM_NTASKS_PER_NODE (Slurm sets it from --ntasks-per-node, which the job does not give)" sbatch "$tmp/nohdr.sbatch" --topo "$H"
printf 'export NCCL_SOCKET_IFNAME=$(ip route | awk "{print \\$5}")\nsrun -n 2 all_reduce_perf\n' >"$tmp/envsub.sbatch"
refused_one_line "$tmp/envsub.sbatch line 2: exports NCCL_SOCKET_IFNAME" sbatch "$tmp/envsub.sbatch" --topo "$H"
printf '#SBATCH -N 2\nsrun -n 2 all_reduce_perf -b 1G -e 1G\nsrun -n 2 all_reduce_perf -b 1G -e 1G -g 99\n' >"$tmp/second.sbatch"
refused_one_line "ccsim sbatch: $tmp/second.sbatch line 3: all_reduce_perf: " sbatch "$tmp/second.sbatch" --topo "$H"
printf 'srun -n 2 bash -c "all_reduce_perf -b 1G -e 1G"\n' >"$tmp/bashc.sbatch"
refused_one_line "$tmp/bashc.sbatch line 1: a test inside a string a shell runs" sbatch "$tmp/bashc.sbatch" --topo "$H"
printf 'srun -n 16 all_reduce_perf -b 1G -e 1G | tee all_reduce_perf.log\necho "done with all_reduce_perf"\n' >"$tmp/tee.sbatch"
[ "$("$ccsim" sbatch "$tmp/tee.sbatch" --topo "$H" | grep -c '^# Collective test concluded')" -eq 1 ] || bad "tee/echo of a test's name taken for a test"
# Fuzz: huge numbers, empty files, binary garbage, a missing file.
printf '#SBATCH --nodes=99999999999999999999\nsrun all_reduce_perf\n' >"$tmp/huge.sbatch"
refused_one_line "$tmp/huge.sbatch line 1: #SBATCH: --nodes 99999999999999999999: not a count of nodes" sbatch "$tmp/huge.sbatch" --topo "$H"
printf '#SBATCH --ntasks-per-node=0\nsrun all_reduce_perf\n' >"$tmp/zero.sbatch"
refused_one_line "$tmp/zero.sbatch line 1: #SBATCH: --ntasks-per-node 0: not a count of tasks" sbatch "$tmp/zero.sbatch" --topo "$H"
printf 'srun -n 99999999999 all_reduce_perf\n' >"$tmp/huge2.sbatch"
refused_one_line "$tmp/huge2.sbatch line 1: " sbatch "$tmp/huge2.sbatch" --topo "$H"
: >"$tmp/empty.sbatch"
refused_one_line "$tmp/empty.sbatch: starts no nccl-tests program" sbatch "$tmp/empty.sbatch" --topo "$H"
head -c 4096 /dev/urandom >"$tmp/garbage.sbatch"; printf '\0' >>"$tmp/garbage.sbatch"
refused_one_line "$tmp/garbage.sbatch: binary data" sbatch "$tmp/garbage.sbatch" --topo "$H"
head -c 3000 /dev/urandom | tr -d '\0' >"$tmp/noise.sbatch"
(ulimit -t 20; "$ccsim" sbatch "$tmp/noise.sbatch" --topo "$H") >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "$tmp/noise.sbatch" "$tmp/err" ||
  bad "random bytes without NUL: exit $rc, $(wc -l <"$tmp/err") stderr line(s): $(head -c 300 "$tmp/err")"
refused_one_line "$tmp/none.sbatch: cannot read the batch script" sbatch "$tmp/none.sbatch" --topo "$H"
refused_one_line "sbatch: no batch script given" sbatch -N 2
printf '"unclosed\n' >"$tmp/quote.sbatch"
refused_one_line "$tmp/quote.sbatch line 1: a quote \" not closed" sbatch "$tmp/quote.sbatch" --topo "$H"

[ "$fails" -eq 0 ] && echo "all sbatch script checks pass"
exit $((fails > 0))
