#!/bin/bash
# Tenth user trial (an ML-systems engineer pasting `nvidia-smi topo -m` / `rocm-smi --showtopo` / `amd-smi topology`
# output as real pastes vary, someone running an nccl-tests or rccl-tests script with NCCL_* settings in its
# environment, a student in a notebook: tests/python holds the Python half). Each friction, fixed and kept fixed:
#  - ccsim all_reduce_perf ignored the environment an nccl-tests script sets for NCCL (NCCL_ALGO=Tree, NCCL_PROTO,
#    NCCL_NVLS_ENABLE=0, NCCL_P2P_DISABLE=1, ...): it silently predicted NCCL's default run. Now read as NCCL reads
#    them, named in the header, a given flag winning; a value NCCL refuses is refused naming the variable;
#  - --nccl-algo Tree (NCCL_ALGO's own spelling) was refused as unknown;
#  - rccl-tests' -u/--cumask, -O/--out_of_place and -s/--stress_cycles were refused by the parser (or -u read as
#    nccl-tests' --unalign and refused as out of range);
#  - a 12- or 13-field header note ended in a stray-looking "# #" (padding so row parsers skip it);
#  - an indented `rocm-smi --showtopo` paste lost its Numa Node lines (every GPU silently on NUMA node 0: other
#    routes, other numbers); an `amd-smi topology --json` paste with a shell prompt after it, or before it in a form
#    other than "$ ...", or indented, was refused;
#  - a paste quoted as replies quote it ("> " before every line) was "not a topology";
#  - explain --bw 1e400GB/s said "is not a number"; sweep -o into an unwritable place led with the journal's name;
#  - ccsim sweep: a point's --p2p-level stayed in force for the later points run on the same thread (the Python module:
#    for every later call), a silent wrong answer; the level is now per thread and cleared as --p2p is;
#  - nccl-tests' NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT (communicators split by process index) were ignored: one
#    communicator of every rank was predicted; now process 0's communicator, on its processes' GPUs, said so;
#  - the command of an mpirun -np 16 line run by hand predicted one rank (busbw 0) with nothing saying why;
#  - a script run as it is through symlinks with CCSIM_TOPO=m.txt (a topo -m paste without its GPU) was told to give
#    --gpu, which it has no place for: CCSIM_GPU is the environment's --gpu.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL)_[A-Z0-9_]*'); do unset "$v"; done

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

last_row() { grep -vE '^#|^$' | tail -1; }

# --- (b) an nccl-tests script's environment --------------------------------------------------------------------
two="cluster:nodes=2,node=hgx-h100,nics=8x400G"
perf16() { OMPI_COMM_WORLD_SIZE=16 "$ccsim" all_reduce_perf --topo "$two" -b 1G -e 1G -g 1 "$@"; }
for pair in "NCCL_ALGO=Tree|--nccl-algo tree" "NCCL_ALGO=ring|--nccl-algo ring" "NCCL_PROTO=LL|--nccl-proto LL" \
            "NCCL_ALGO=Ring;allreduce:Tree|--nccl-algo tree" "NCCL_NVLS_ENABLE=0|--nvls off" "NCCL_P2P_DISABLE=1|--p2p off"; do
  var=${pair%%|*}; flag=${pair#*|}
  want=$(perf16 $flag 2>&1 | last_row)
  got=$(env "$var" OMPI_COMM_WORLD_SIZE=16 "$ccsim" all_reduce_perf --topo "$two" -b 1G -e 1G -g 1 2>&1 | last_row)
  [ -n "$want" ] && [ "$got" = "$want" ] || bad "$var in the environment did not predict as $flag: '$got' vs '$want'"
done
[ "$(perf16 | last_row)" != "$(perf16 --nccl-algo tree | last_row)" ] || bad "tree and NCCL's pick alike here: the check above proves nothing"
NCCL_ALGO=Tree perf16 | grep -qF "# ccsim: NCCL settings read from the environment, as NCCL reads them: NCCL_ALGO=Tree (--nccl-algo tree)" ||
  bad "the header does not name NCCL_ALGO=Tree: $(NCCL_ALGO=Tree perf16 2>&1 | grep environment)"
# A flag given wins, and says so; a setting ccsim does not read is named, not silently dropped.
got=$(NCCL_ALGO=Tree perf16 --nccl-algo ring 2>&1)
[ "$(echo "$got" | last_row)" = "$(perf16 --nccl-algo ring | last_row)" ] || bad "--nccl-algo ring did not win over NCCL_ALGO=Tree"
echo "$got" | grep -qF "# ccsim: given flags win over the environment: --nccl-algo ring" || bad "no 'given flags win' line"
NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_DEBUG=INFO perf16 | grep -qF "# ccsim: NCCL settings in the environment that ccsim does not read (predicted as if unset): NCCL_DEBUG=INFO, NCCL_IB_HCA=mlx5_0,mlx5_1" ||
  bad "NCCL_IB_HCA not named as unread"
NCCL_TESTS=/x perf16 | grep -q "NCCL_TESTS" && bad "NCCL_TESTS (README's symlink folder, not NCCL's) named in the header"
CCSIM_MODEL=fifo NCCL_ALGO=Tree perf16 | grep -qF "# ccsim: not applied, --model fifo has no NCCL tuner: --nccl-algo tree" ||
  bad "NCCL_ALGO under --model fifo not said to be unapplied"
# What NCCL refuses, ccsim refuses naming the variable; an error about a flag the environment set names the variable.
NCCL_ALGO=Rings refused_one_line "environment NCCL_ALGO=Rings: unrecognized name 'Rings'" all_reduce_perf --topo dgx1 -b 1M -e 1M
NCCL_PROTO='^LL,LL128,Simple' refused_one_line "environment NCCL_PROTO=^LL,LL128,Simple: leaves no protocol for AllReduce" all_reduce_perf --topo dgx1 -b 1M -e 1M
NCCL_ALGO=NVLS refused_one_line "(--nccl-algo came from the environment: NCCL_ALGO=NVLS)" all_reduce_perf --topo dgx1 -g 8 -b 1M -e 1M
# The variable that set the flag, not one whose line merely mentions it: NCCL_NVLS_ENABLE=1 turns nothing off.
NCCL_ALGO=^NVLS NCCL_NVLS_ENABLE=1 refused_one_line "(--nvls came from the environment: NCCL_ALGO=^NVLS)" \
  all_reduce_perf --topo hgx-h100 --nccl-algo nvls -g 8 -b 1M -e 1M
# NCCL_ALGO's spelling as a flag too.
"$ccsim" --topo dgx1 --model nccl --nccl-algo Tree -b 1M -e 1M >/dev/null 2>&1 || bad "--nccl-algo Tree refused"

# nccl-tests' NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT: process 0's communicator, on its own processes' GPUs.
for pair in "NCCL_TESTS_SPLIT_MASK=0x7|0,8" "NCCL_TESTS_SPLIT=%8|0,8" "NCCL_TESTS_SPLIT=DIV 8|0,1,2,3,4,5,6,7" "NCCL_TESTS_SPLIT=&0x8|0,1,2,3,4,5,6,7"; do
  var=${pair%%|*}; gpus=${pair#*|}
  n=$(echo "$gpus" | tr ',' '\n' | wc -l)
  want=$("$ccsim" all_reduce_perf --topo "$two" --gpus "$gpus" --procs "$n" -g 1 -b 1G -e 1G 2>&1 | last_row)
  got=$(env "$var" OMPI_COMM_WORLD_SIZE=16 "$ccsim" all_reduce_perf --topo "$two" -b 1G -e 1G -g 1 2>&1)
  [ -n "$want" ] && [ "$(echo "$got" | last_row)" = "$want" ] || bad "$var: not GPUs $gpus alone: $(echo "$got" | last_row) vs $want"
  echo "$got" | grep -qF "# ccsim: $n ranks = $n of 16 processes (OMPI_COMM_WORLD_SIZE; $var) x nThread 1 x nGpus 1" ||
    bad "$var: rank line: $(echo "$got" | grep 'ranks =')"
done
NCCL_TESTS_SPLIT=%0 OMPI_COMM_WORLD_SIZE=16 refused_one_line "environment NCCL_TESTS_SPLIT=%0: divides by zero" all_reduce_perf --topo "$two" -b 1M -e 1M

# The command of an mpirun/srun line run by hand: one rank, said, with the flag for the launcher's task count.
"$ccsim" all_reduce_perf --topo "$two" -b 8 -e 1M -f 2 -g 1 | grep -qF "# ccsim: 1 rank: no launcher seen" || bad "a lone rank not explained"
OMPI_COMM_WORLD_SIZE=1 "$ccsim" all_reduce_perf --topo "$two" -b 8 -e 1M -f 2 -g 1 | grep -q "no launcher seen" && bad "'no launcher' under mpirun -np 1"

# A script run as it is through a symlink, CCSIM_TOPO a topo -m paste without its GPU: CCSIM_GPU is its --gpu.
mkdir -p "$tmp/bin"; ln -s "$(readlink -f "$ccsim")" "$tmp/bin/all_reduce_perf"
grep -v '^#' "$src/tests/data/import/h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt" >"$tmp/m.txt"
want=$("$ccsim" all_reduce_perf --topo "$tmp/m.txt" --gpu h100 -g 8 -b 1G -e 1G | last_row)
got=$(CCSIM_TOPO="$tmp/m.txt" CCSIM_GPU=h100 "$tmp/bin/all_reduce_perf" -g 8 -b 1G -e 1G 2>&1 | last_row)
[ -n "$want" ] && [ "$got" = "$want" ] || bad "CCSIM_GPU=h100 did not act as --gpu h100: '$got' vs '$want'"
CCSIM_TOPO="$tmp/m.txt" "$tmp/bin/all_reduce_perf" -g 8 -b 1G -e 1G 2>&1 | grep -qF "(the file came from the environment, CCSIM_TOPO=$tmp/m.txt: CCSIM_GPU=KIND gives its GPU there)" ||
  bad "a CCSIM_TOPO paste without its GPU does not point at CCSIM_GPU"
CCSIM_GPU=h999 refused_one_line "environment CCSIM_GPU=h999: --gpu: unknown gpu 'h999'" all_reduce_perf --topo "$tmp/m.txt" -g 8 -b 1M -e 1M

# --- (b) rccl-tests' own options ----------------------------------------------------------------------------------
mi=machine:gpu=mi300x
perf8() { OMPI_COMM_WORLD_SIZE=8 "$ccsim" all_reduce_perf --topo "$mi" "$@"; }
for u in "-u 0xffffffff,0xffffffff,0xffffffff,0xffffffff" "--cumask ff,ff" "-u 3"; do
  perf8 -b 1M -e 1M $u >/dev/null 2>"$tmp/err" || bad "rccl-tests $u refused: $(cat "$tmp/err")"
done
refused_one_line "-u: 'zz' is neither nccl-tests' --unalign (a number of elements, 0..1073741824) nor rccl-tests' --cumask" all_reduce_perf --topo "$mi" -b 1M -e 1M -u zz
# -O 0: the in-place half only, in rccl-tests' header shape; 9 fields a row.
out=$(perf8 -b 1M -e 4M -f 2 -O 0 2>&1)
echo "$out" | grep -q "^#  *in-place *$" || bad "-O 0: no in-place-only header: $(echo "$out" | grep -i place)"
[ "$(echo "$out" | grep -vE '^#' | awk 'NF != 9' | wc -l)" = 0 ] && [ "$(echo "$out" | grep -cvE '^#')" = 3 ] ||
  bad "-O 0 rows are not 3 rows of 9 fields: $(echo "$out" | grep -v '^#')"
perf8 -b 1M -e 4M -f 2 -O 0 >"$tmp/o0.txt" 2>&1
"$ccsim" compare --trace "$tmp/o0.txt" --topo "$mi" --model nccl 2>&1 | grep -q "median |busbw err|: 0.0%" ||
  bad "compare does not read -O 0 output back with zero error: $("$ccsim" compare --trace "$tmp/o0.txt" --topo "$mi" --model nccl 2>&1 | tail -1)"
# -s 2: the sweep twice, "# Testing 2 cycle." before the second.
out=$(perf8 -b 1M -e 2M -f 2 -s 2 2>&1)
[ "$(echo "$out" | grep -cvE '^#')" = 4 ] && echo "$out" | grep -qx "# Testing 2 cycle." || bad "-s 2: $(echo "$out" | grep -v '^#  Rank')"
refused_one_line "-s,--stress_cycles 0: rccl-tests runs no size at all" all_reduce_perf --topo "$mi" -b 1M -e 1M -s 0
# A note of 12 fields: two words more, not a stray "# #".
perf8 -b 1M -e 1M -w 3 | grep -qxF "# ccsim: accepted, cannot change a prediction (one steady-state collective): -w 3 [ccsim note]" ||
  bad "12-field note: $(perf8 -b 1M -e 1M -w 3 | grep 'accepted')"

# --- (a) pastes as they vary --------------------------------------------------------------------------------------
imp="$src/tests/data/import"
# rocm-smi --showtopo indented (a paste from an indented code block): the same machine as the plain paste.
f="$imp/rocm-smi-showtopo-4gpu-xgmi-numa-archer2.txt"
sed 's/^/    /' "$f" >"$tmp/indented.txt"
want=$("$ccsim" --topo "$f" --gpu mi250x -b 1G -e 1G | last_row)
got=$("$ccsim" --topo "$tmp/indented.txt" --gpu mi250x -b 1G -e 1G 2>&1 | last_row)
[ "$got" = "$want" ] || bad "indented rocm-smi --showtopo predicts '$got', the plain paste '$want'"
f="$imp/rocm-smi-showtopo-4gpu-xgmi-brickhouse.txt"
sed 's/^/    /' "$f" >"$tmp/indented.txt"
want=$("$ccsim" --topo "$f" --gpu mi300x -b 1G -e 1G | last_row)
got=$("$ccsim" --topo "$tmp/indented.txt" --gpu mi300x -b 1G -e 1G 2>&1 | last_row)
[ "$got" = "$want" ] || bad "indented rocm-smi (brickhouse) predicts '$got', the plain paste '$want'"
# amd-smi topology --json between shell prompts, or indented.
f="$imp/amd-smi-topology-json-2gpu-pcie-access-type-amdsmi-changelog612.txt"
want=$("$ccsim" --topo "$f" --gpu mi300x -b 1G -e 1G | last_row)
{ echo "user@node01:~\$ amd-smi topology --json"; grep -v '^#' "$f" | grep -v '^\$'; echo "user@node01:~\$ "; } >"$tmp/prompts.txt"
{ echo "[root@node01 ~]# amd-smi topology --json"; grep -v '^#' "$f" | grep -v '^\$' | sed 's/^/  /'; } >"$tmp/indented.json.txt"
for v in prompts indented.json; do
  got=$("$ccsim" --topo "$tmp/$v.txt" --gpu mi300x -b 1G -e 1G 2>&1 | last_row)
  [ "$got" = "$want" ] || bad "amd-smi --json paste ($v) predicts '$got', the plain file '$want'"
done

# Quoted as a reply quotes it ("> " on every line): read as the plain paste, whatever the format.
for f in "$imp/h800-8gpu-9nic-bond-topo-m-sglang-checkenv.txt" "$imp/rocm-smi-showtopo-4gpu-xgmi-numa-archer2.txt" \
         "$imp/amd-smi-topology-8gpu-mi355x-xgmi-weight0-oci.txt"; do
  g=h800; case "$f" in *rocm-smi*) g=mi250x;; *amd-smi*) g=mi355x;; esac
  sed 's/^/> /' "$f" >"$tmp/quoted.txt"
  want=$("$ccsim" --topo "$f" --gpu $g -b 1G -e 1G | last_row)
  got=$("$ccsim" --topo "$tmp/quoted.txt" --gpu $g -b 1G -e 1G 2>&1 | last_row)
  [ "$got" = "$want" ] || bad "quoted $(basename "$f") predicts '$got', the plain paste '$want'"
done

# --- ccsim sweep: a point's --p2p-level stayed for the later points of its thread ----------------------------------
printf '{"defaults": {"op": "allreduce", "bytes": "128M", "model": "nccl"}, "points": [{"topo": "dgx1", "p2p-level": "LOC"}, {"topo": "dgx1"}]}\n' >"$tmp/leak.json"
"$ccsim" sweep "$tmp/leak.json" -j 1 -o "$tmp/leak.csv" 2>/dev/null
plain=$("$ccsim" --topo dgx1 --model nccl -b 128M -e 128M | last_row | awk '{print $6}')
got=$(awk -F, 'NR == 3 {print $15}' "$tmp/leak.csv")
awk -v a="$got" -v b="$plain" 'BEGIN {exit !(a != "" && sprintf("%.2f", a) == sprintf("%.2f", b))}' || bad "sweep point 1 (no --p2p-level) after a LOC point: $got us, alone $plain us"

# --- leftovers of the ninth trial ---------------------------------------------------------------------------------
refused_one_line "--bw: '1e400GB/s' is absurdly large" explain --op allreduce --ranks 8 --alpha 1us --bw 1e400GB/s --size 1M
printf '{"defaults": {"op": "allreduce", "bytes": "1M"}, "points": [{"topo": "dgx1"}]}\n' >"$tmp/plan.json"
refused_one_line "-o/--output /proc/ccsim-x: cannot open its resume journal /proc/ccsim-x.ccsim-journal: " sweep "$tmp/plan.json" -o /proc/ccsim-x

[ "$fails" -eq 0 ] && echo "all new-user friction checks (10th trial) pass"
exit $((fails > 0))
