#!/bin/bash
# Fifth user trial (a researcher sizing clusters described in words, an ML-systems engineer with mpirun/srun
# nccl-tests logs full of NCCL_DEBUG=INFO lines and a ticket to write, a Python user with pandas;
# tests/python/test_ccsim.py holds the Python half). Each friction, fixed and kept fixed:
#  - every NCCL from 2.21.5 on logs "32 coll channels, 32 collnet channels, ..." (src/init.cc passes comm->nChannels
#    twice), and compare said "CollNet in use (32 collnet channels)" of every such log, SHARP or not;
#  - no table to paste into a ticket: --format took table, csv, json (explain alone had markdown);
#  - `-f inf` printed the first row alone, exit 0 (nan and 0.5 were refused);
#  - machine:/cluster: descriptions checked by the builders ("cluster: nodes must be between 1 and 65536, got -1")
#    named neither --topo nor the spec typed;
#  - compare without --topo on a 2-node log asked for "machine:gpu=h100,nodes=N,nics=MxSPEED" although the device
#    list names the 2 hosts and their 8 GPUs each;
#  - `compare --plot /proc/p.png` named "/proc/p.png.json", a scratch file the user never asked for; a write-through
#    target that cannot be opened was found only after the table had been printed.
set -u
ccsim="$1"; src="$2"
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

# A one-node H100 nccl-tests log with NCCL_DEBUG=INFO lines, as mpirun --tag-output prints it. NCCL_VERSION and
# COLLNET fill the version line and the channel summary line.
trace() { # VERSION COLL COLLNET
  {
    echo "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
    echo "[1,0]<stdout>:#"
    echo "[1,0]<stdout>:# Using devices"
    for r in 0 1 2 3 4 5 6 7; do
      echo "[1,0]<stdout>:#  Rank  $r Group  0 Pid  100$r on      node1 device  $r [0x18] NVIDIA H100 80GB HBM3"
    done
    for r in 0 1 2 3 4 5 6 7; do
      echo "[1,$r]<stdout>:node1:100$r:100$r [$r] NCCL INFO NCCL version $1+cuda12.4"
      echo "[1,$r]<stdout>:node1:100$r:200$r [$r] NCCL INFO $2 coll channels, $3 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer"
    done
    echo "[1,0]<stdout>:#"
    echo "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
    echo "[1,0]<stdout>:#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "
    echo "[1,0]<stdout>:     1048576        262144     float     sum      -1    40.00   26.21   45.88      0    40.00   26.21   45.88      0"
    echo "[1,0]<stdout>:     2097152        524288     float     sum      -1    50.00   41.94   73.40      0    50.00   41.94   73.40      0"
    echo "[1,0]<stdout>:     4194304       1048576     float     sum      -1    70.00   59.92  104.86      0    70.00   59.92  104.86      0"
  }
}

# NVIDIA/nccl src/init.cc: 2.20.3 and 2.20.5 log comm->collNetChannels there, 2.21.5 to 2.29.7 comm->nChannels again.
trace 2.21.5 32 32 >"$tmp/v2215.txt"
trace 2.20.5 32 32 >"$tmp/v2205.txt"
h100="machine:gpu=h100,gpus=8"
out=$("$ccsim" compare --trace "$tmp/v2215.txt" --topo "$h100" --model nccl 2>&1) || bad "compare of a 2.21.5 log: $out"
grep -qF "CollNet in use" <<<"$out" && bad "2.21.5 log: its coll channel count read as CollNet: $(grep -F CollNet <<<"$out")"
grep -qF "# trace: NCCL INFO: 32 collnet channels not read as CollNet: NCCL 2.21.5+cuda12.4 prints its coll channel count there" <<<"$out" ||
  bad "2.21.5 log: no note on its collnet channel count: $(grep -F collnet <<<"$out")"
out=$("$ccsim" compare --trace "$tmp/v2205.txt" --topo "$h100" --model nccl 2>&1) || bad "compare of a 2.20.5 log: $out"
grep -qF "# trace: CollNet in use (32 collnet channels)" <<<"$out" || bad "2.20.5 log: its CollNet count not read: $(grep -F -i collnet <<<"$out")"
# Release unknown (the version line cut): equal counts say nothing, a count that differs is 2.20's own.
grep -v "NCCL version" "$tmp/v2215.txt" >"$tmp/noversion.txt"
"$ccsim" compare --trace "$tmp/noversion.txt" --topo "$h100" --model nccl | grep -qF "CollNet in use" && bad "log without a version: CollNet read from equal counts"

# Without --topo, the machine: words ask only for what the log does not say: 16 ranks on 2 hosts of 8 (srun -l).
{
  echo " 0: # nThread 1 nGpus 1 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
  echo " 0: # Using devices"
  for r in $(seq 0 15); do echo " 0: #  Rank $r Group  0 Pid  1000 on node$((r / 8)) device  $((r % 8)) [0x18] NVIDIA H100 80GB HBM3"; done
  echo " 0: #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
  echo " 0:      1048576        262144     float     sum      -1    50.00   20.97   39.32      0    50.00   20.97   39.32      0"
} >"$tmp/2node.txt"
refused_one_line "give --topo (the machine's nvidia-smi topo -m file, a shipped name, or machine:gpu=h100,nodes=2,nics=MxSPEED (the device list names 2 hosts" \
  compare --trace "$tmp/2node.txt"

# Markdown, to paste into a ticket: the same numbers as the table (two routes: the table's columns and the
# Markdown cells), a header row, an alignment row, one row per size, and nothing after the table that a renderer
# would take for a row.
tab=$("$ccsim" --topo dgx1 --model nccl -b 1M -e 4M) md=$("$ccsim" --topo dgx1 --model nccl -b 1M -e 4M --format markdown)
[ "$(grep -c '^| [0-9]' <<<"$md")" -eq 3 ] || bad "sweep markdown: not 3 rows: $md"
grep -qF "| size (B) | count (elements) | type | redop | root | time (us) | algbw (GB/s) | busbw (GB/s) | choice |" <<<"$md" ||
  bad "sweep markdown: header row: $(sed -n 3p <<<"$md")"
grep -qF "|---:|---:|:---|:---|---:|---:|---:|---:|:---|" <<<"$md" || bad "sweep markdown: alignment row"
while read -r size count type redop root time algbw busbw choice; do
  grep -qF "| $size | $count | $type | $redop | $root | $time | $algbw | $busbw | $choice |" <<<"$md" ||
    bad "sweep markdown: no row '$size ... $busbw $choice'"
done < <(grep -v '^#' <<<"$tab")
awk '/^\|/ {t=1; next} t && /./ {exit 1} {t=0}' <<<"$md" || bad "sweep markdown: text right under the table"
mdc=$("$ccsim" compare --trace "$tmp/v2215.txt" --topo "$h100" --model nccl --format markdown)
tabc=$("$ccsim" compare --trace "$tmp/v2215.txt" --topo "$h100" --model nccl)
[ "$(grep -c '^| [0-9]' <<<"$mdc")" -eq 3 ] || bad "compare markdown: not 3 rows: $mdc"
while read -r size count mt pt ma pa mb pb err choice; do
  grep -qF "| $size | $count | $mt | $pt | $ma | $pa | $mb | $pb | $err | $choice |" <<<"$mdc" || bad "compare markdown: no row for $size"
done < <(grep -v '^#' <<<"$tabc")
median=$(grep -o 'median |busbw err|: [0-9.]*% for sizes >= 1 MiB' <<<"$tabc" | grep -o '[0-9.]*%' | tr -d %)
grep -qF "median of its absolute value $median % for sizes >= 1 MiB" <<<"$mdc" || bad "compare markdown: no median $median %"
# No line of prose may start with '|' right under the table (it would render as one more row).
awk '/^\|/ {t=1; next} t && /./ {exit 1} {t=0}' <<<"$mdc" || bad "compare markdown: text right under the table"
refused_one_line "--format: unknown format 'xlsx' (table, csv, json, markdown)" --format xlsx -b 1M -e 1M

# -f inf would stop after -b's row: refused as nan is.
refused_one_line "-f/--stepfactor must be a finite number greater than 1, got inf" -f inf

# A description the builders refuse names the flag and the spec as typed.
refused_one_line "--topo machine:gpu=h200,nodes=-1,nics=8x400G: cluster: nodes must be between 1 and 65536, got -1" \
  --topo machine:gpu=h200,nodes=-1,nics=8x400G -b 1M -e 1M
refused_one_line "--topo machine:gpu=h200,gpus=0: machine: gpus must be between 1 and 1024, got 0" --topo machine:gpu=h200,gpus=0 -b 1M -e 1M
refused_one_line "--topo machine:gpu=h100,bridge=3way: machine: bridge '3way' is not 2way, 4way or none" rings --topo machine:gpu=h100,bridge=3way

# An output under /proc or /dev that cannot be opened is refused before anything is printed, naming the file
# the user gave (not a ".json" scratch file beside it).
refused_one_line "/proc/ccsim-no-such-file.png: cannot open for writing" compare --trace "$tmp/v2215.txt" --topo "$h100" --plot /proc/ccsim-no-such-file.png
grep -qF ".png.json" "$tmp/err" && bad "--plot named its scratch file: $(cat "$tmp/err")"
refused_one_line "/dev/ccsim-no-such-device: cannot open for writing" -b 1M -e 1M --output /dev/ccsim-no-such-device
[ -e /dev/ccsim-no-such-device ] && bad "--output /dev/ccsim-no-such-device created it"

[ "$fails" -eq 0 ] && echo "fifth-trial frictions: all fixed" || exit 1
