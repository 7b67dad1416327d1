#!/bin/bash
# Seventh user trial (a researcher predicting 4 / 16 / 64 nodes of 8 x H200 or B200 over IB and RoCE before buying,
# an ML engineer comparing nccl-tests SLURM outputs, a Python user sweeping into pandas; tests/python/test_ccsim.py
# and tests/unit/trace/nccl_tests_options_test.cpp hold the other halves). Each friction, fixed and kept fixed:
#  - `ccsim explain --ranks 4294967297` named the parser's int limit (2147483647), not explain's own 65536;
#  - machine:gpu=h100,gpus=16 was one 16-GPU NVSwitch box, which no HGX/DGX board is (8 GPUs; the DGX-2's V100: 16);
#  - --topo machine:gpu=h200,nodes=99999999999,... (and gpus=, nics=, dims=, ranks= beyond int) named int's range,
#    -2147483648..2147483647, where the builder takes 1..65536 nodes; sweep -j and rings --exhaustive-max likewise;
#  - kind=roce and kind=ib on 8 x 400G predict the same rows (RoCE's framing, 0.9866 of IB, stays above NCCL's 0.96
#    NIC efficiency) and nothing in the output said which network was described: the header's topology now says.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

# explain's --ranks: the range the command takes, whatever the number's size.
refused_one_line "--ranks: 4294967297 is out of range (1..65536)" explain --ranks 4294967297
refused_one_line "--ranks: 70000 is out of range (1..65536)" explain --ranks 70000
refused_one_line "--ranks: 99999999999999999999999 is out of range (1..65536)" explain --algo ring --ranks 99999999999999999999999
refused_one_line "--ranks: -4294967297 is out of range (1..65536)" explain --ranks -4294967297
refused_one_line "--ranks: 'many' is not a whole number" explain --ranks many
"$ccsim" explain --algo ring --ranks 65536 >/dev/null 2>"$tmp/err"; grep -qF "65536 ranks is more than 4096 for one algorithm" "$tmp/err" ||
  bad "explain --ranks 65536: $(cat "$tmp/err")"

# An HGX/DGX board holds 8 GPUs on its NVSwitches (models/gpus.json nvswitch_domain): 16 are two nodes.
refused_one_line "machine: one h100 NVLink domain holds at most 8 GPUs (models/gpus.json nvswitch_domain), got gpus=16; more GPUs are more nodes: gpus=8,nodes=2,nics=MxSPEED (e.g. nics=8x400G)" \
  --topo machine:gpu=h100,gpus=16 -b 1M -e 1M
for k in a100 a800 h800 h200 h20 b200 b300; do
  refused_one_line "machine: one $k NVLink domain holds at most 8 GPUs" --topo "machine:gpu=$k,gpus=9" -b 1M -e 1M
  "$ccsim" --topo "machine:gpu=$k,gpus=8" -b 1M -e 1M >/dev/null 2>&1 || bad "machine:gpu=$k,gpus=8 refused"
done
refused_one_line "holds at most 8 GPUs (models/gpus.json nvswitch_domain), got gpus=12; more GPUs are more nodes: gpus=8,nodes=N,nics=MxSPEED" \
  --topo machine:gpu=b200,gpus=12,nodes=2,nics=8x400G -b 1M -e 1M
refused_one_line "machine: one v100 NVLink domain holds at most 16 GPUs" --topo machine:gpu=v100,gpus=17 -b 1M -e 1M
"$ccsim" --topo machine:gpu=v100,gpus=16 -b 1M -e 1M >/dev/null 2>&1 || bad "16 V100 (a DGX-2) refused"
"$ccsim" --topo machine:gpu=h100,gpus=16,intra=pcie -b 1M -e 1M >/dev/null 2>&1 || bad "16 H100 on PCIe refused (no NVSwitch board to outgrow)"
"$ccsim" --topo machine:gpu=h100,gpus=8,nodes=2,nics=8x400G -b 1M -e 1M >/dev/null 2>&1 || bad "the suggested 2 nodes refused"
refused_one_line "more GPUs are more racks: gpus=72,nodes=2,nics=MxSPEED (e.g. nics=72x400G)" --topo machine:gpu=gb200,gpus=144 -b 1M -e 1M

# A spec's numbers beyond int: the range the builder takes (which refuses what fits in int in its own words).
refused_one_line "--topo machine:gpu=h200,nodes=99999999999,nics=8x400G: nodes: 99999999999 is out of range (1..65536)" \
  --topo machine:gpu=h200,nodes=99999999999,nics=8x400G -b 1M -e 1M
refused_one_line "nodes: -99999999999 is out of range (1..65536)" --topo machine:gpu=h200,nodes=-99999999999,nics=8x400G -b 1M -e 1M
refused_one_line "gpus: 4294967304 is out of range (1..1024)" --topo machine:gpu=h200,gpus=4294967304 -b 1M -e 1M
refused_one_line "--topo nics: 4294967304 is out of range (1..1024)" --topo machine:gpu=h200,nodes=2,nics=4294967304x400G -b 1M -e 1M
refused_one_line "ranks: 99999999999 is out of range (1..1048576)" --topo crossbar:ranks=99999999999 -b 1M -e 1M
refused_one_line "--topo dims: 99999999999 is out of range (1..1048576)" --topo torus:dims=99999999999x2 -b 1M -e 1M
refused_one_line "cluster: nodes must be between 1 and 65536, got 70000" --topo machine:gpu=h200,nodes=70000,nics=8x400G -b 1M -e 1M

echo '{"defaults": {"topo": "dgx1", "bytes": "1M"}}' >"$tmp/plan.json"
refused_one_line "--jobs: 99999999999 is out of range (0..4096)" sweep "$tmp/plan.json" -o "$tmp/sweep.csv" -j 99999999999
[ -e "$tmp/sweep.csv" ] && bad "sweep -j 99999999999 left $tmp/sweep.csv"
refused_one_line "--jobs: -1 is out of range (0..4096)" sweep "$tmp/plan.json" -o "$tmp/sweep.csv" -j -1
refused_one_line "--exhaustive-max: 99999999999 is out of range (3..14)" rings --topo dgx1 --exhaustive-max 99999999999
refused_one_line "--exhaustive-max: 2 is out of range (3..14)" rings --topo dgx1 --exhaustive-max 2

# The network a cluster was described with, in the header (table, compare, JSON): IB against RoCE is visible.
for k in ib roce; do
  out=$("$ccsim" --topo "machine:gpu=h200,nodes=4,nics=8x400G,kind=$k" --model nccl -b 1M -e 1M 2>&1)
  grep -qF "# topology cluster-4xmachine-8xh200-nvswitch (generated: 4 nodes, 8 x 400 Gb/s $k NIC(s) each, one switch), 32 ranks" <<<"$out" ||
    bad "kind=$k not in the header: $(sed -n 2p <<<"$out")"
done
"$ccsim" --topo machine:gpu=b200,nodes=2,nics=4x200G,kind=roce,fabric=fattree,oversub=2 -b 1M -e 1M --format json |
  python3 -c 'import json,sys; o = json.load(sys.stdin)["topology_origin"]; sys.exit(0 if o == "generated: 2 nodes, 4 x 200 Gb/s roce NIC(s) each, fat tree 2:1" else 1)' ||
  bad "JSON topology_origin without the network"

# sweep -o into a folder that does not exist named the resume journal (x.csv.ccsim-journal), not the flag.
printf '{"points": [{"topo": "dgx1", "op": "allreduce", "bytes": 1048576}]}\n' >"$tmp/plan.json"
refused_one_line "-o/--output: $tmp/none/x.csv: the folder $tmp/none does not exist" sweep "$tmp/plan.json" -o "$tmp/none/x.csv"

[ "$fails" -eq 0 ] && echo "all new-user friction checks (7th trial) pass"
exit $((fails > 0))
