#!/bin/bash
# Ninth user trial (an AMD cluster user with rocm-smi / amd-smi output and an rccl-tests script, a teacher with
# `ccsim explain` and the teaching pages, a Python user sweeping ring orders in a notebook; tests/python holds the
# Python half). Each friction, fixed and kept fixed:
#  - an output that cannot be written named the file but not the flag that gave it: now both, on every command
#    that writes a file (--output, -o/--output, --timeline, --plot), one line, exit 2, no file left;
#  - machine:gpu=p100 built an 8-GPU NVSwitch board, which was never made for Pascal: it is now the DGX-1 P100
#    cube-mesh (topologies/dgx1-p100.json), and intra=nvswitch for it is refused naming what to write instead;
#  - an rccl-tests script (mpirun ... all_reduce_perf -b 8 -e 8G -f 2 -g 1 -Z csv -x out.csv, -Y fine, -F, -E) was
#    refused by a parser error ("The following arguments were not expected: csv -Z"), rccl-tests' own options
#    unknown: they are now read, and the result file is refused saying the rows are in the log;
#  - an empty topology capture (rocm-smi --showtopo > m.txt where the tool is missing) was "not a topology".
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

# Unwritable outputs: the flag and the file, on every command that writes one.
printf '{"defaults": {"op": "allreduce", "bytes": "1M"}, "points": [{"topo": "dgx1"}]}\n' >"$tmp/plan.json"
refused_one_line "--output /proc/ccsim-x: cannot open for writing" --topo dgx1 -b 1M -e 1M --output /proc/ccsim-x
refused_one_line "--timeline /proc/ccsim-x: cannot open for writing" --topo dgx1 -b 1M -e 1M --timeline /proc/ccsim-x
refused_one_line "--output /proc/ccsim-x: cannot open for writing" rings --topo dgx1 --output /proc/ccsim-x
refused_one_line "-o/--output /proc/ccsim-x: cannot open for writing" explain --topo dgx1 -o /proc/ccsim-x
refused_one_line "-o/--output /proc/ccsim-x: cannot open for writing" topo gen crossbar --ranks 4 -o /proc/ccsim-x
refused_one_line "-o/--output /proc/ccsim-x: cannot open for writing" topo export dgx1 --nccl-xml -o /proc/ccsim-x
refused_one_line "--output /proc/ccsim-x: cannot open for writing" scenario "$src/scenarios/lm300m_dgx1.json" --output /proc/ccsim-x
refused_one_line "--plot /proc/ccsim-x.png: cannot open for writing" compare --trace "$src/tests/data/hypercube-4gpu-crossbar-SYNTHETIC.txt" --topo crossbar:ranks=4 --plot /proc/ccsim-x.png
refused_one_line "--output $tmp/no/out.txt: cannot open for writing" --topo dgx1 -b 1M -e 1M --output "$tmp/no/out.txt"
refused_one_line "-o/--output $tmp: is a directory" explain --topo dgx1 -o "$tmp"
refused_one_line "-o/--output" sweep "$tmp/plan.json" -o /proc/ccsim-x
ls -A "$tmp" | grep -vxE "plan.json|out|err" | grep -q . && bad "a refused output left a file: $(ls -A "$tmp")"

# P100: the DGX-1 cube-mesh, never an NVSwitch board.
"$ccsim" topo show machine:gpu=p100 2>&1 | head -1 | grep -qF "topology dgx1-p100 (shipped preset topologies/dgx1-p100.json)" ||
  bad "machine:gpu=p100 is not the DGX-1 P100: $("$ccsim" topo show machine:gpu=p100 2>&1 | head -1)"
refused_one_line "no NVSwitch board was made for p100 (models/gpus.json has no nvswitch_domain for it): write intra=cubemesh (the DGX-1 P100, gpus=8) or intra=pcie" \
  topo show machine:gpu=p100,intra=nvswitch
# Fewer GPUs than the DGX-1's 8 (tests/cli/gpu_kinds.sh tries 1, 2 and 4): a PCIe machine, named so.
"$ccsim" topo show machine:gpu=p100,gpus=4 2>&1 | head -1 | grep -qF "topology machine-4xp100-pcie" || bad "machine:gpu=p100,gpus=4 is not PCIe"
refused_one_line "intra=cubemesh is the 8-GPU DGX-1 board (gpu=v100 or p100, gpus=8)" topo show machine:gpu=p100,gpus=4,intra=cubemesh
"$ccsim" topo show machine:gpu=v100,gpus=16 >/dev/null 2>&1 || bad "machine:gpu=v100,gpus=16 (the DGX-2) refused"

# An empty capture (the tool missing on the node) says it is empty, as an empty trace does.
: >"$tmp/m.txt"
refused_one_line "$tmp/m.txt: the file is empty: expected ccsim JSON" topo import "$tmp/m.txt"
printf ' \n\n' >"$tmp/m.txt"
refused_one_line "$tmp/m.txt: the file is empty: expected ccsim JSON" --topo "$tmp/m.txt" -b 1M -e 1M
rm -f "$tmp/m.txt"

# An rccl-tests script run unchanged: rccl-tests' own options (-Y -q -F -E and their long names) are accepted and
# said to change nothing; its result file (-x FILE -Z csv|json) is refused saying where the rows are.
perf() { OMPI_COMM_WORLD_SIZE=8 "$ccsim" all_reduce_perf --topo machine:gpu=mi300x "$@"; }
perf -b 1M -e 1M -Y fine -q 10 -F 2 -E 1 --cache_f=3 2>&1 |
  grep -qF "# ccsim: accepted, cannot change a prediction (one steady-state collective): -Y fine, -q 10, -F 3, -E 1" ||
  bad "rccl-tests -Y/-q/-F/-E: $(perf -b 1M -e 1M -Y fine -q 10 -F 2 -E 1 2>&1 | grep -v '^ ' | tail -3)"
want="rccl-tests' result file (-x $tmp/r.csv) is not written by ccsim; its rows are in the log on stdout: redirect it (> log.txt; ccsim compare --trace log.txt reads it)"
OMPI_COMM_WORLD_SIZE=8 refused_one_line "$want" all_reduce_perf --topo machine:gpu=mi300x -b 8 -e 128M -f 2 -g 1 -Z csv -x "$tmp/r.csv"
OMPI_COMM_WORLD_SIZE=8 refused_one_line "-x/-Z: rccl-tests' result file (-Z json)" all_reduce_perf --topo machine:gpu=mi300x -b 8 -e 1M -Z json
[ -e "$tmp/r.csv" ] && bad "-x $tmp/r.csv was written"
refused_one_line "-Y,--memory_type: 'bogus' is not coarse, fine, host or managed" all_reduce_perf --topo machine:gpu=mi300x -b 1M -e 1M -Y bogus
refused_one_line "--output: ambiguous, as nccl-tests' getopt_long finds it: --output_file, --output_format" all_reduce_perf --topo machine:gpu=mi300x -b 1M -e 1M --output x.csv
"$ccsim" all_reduce_perf --topo dgx1 -b 1M -e 1M -x 1 >/dev/null 2>&1 || bad "nccl-tests' -x 1 (cta_policy) refused"

[ "$fails" -eq 0 ] && echo "all new-user friction checks (9th trial) pass"
exit $((fails > 0))
