#!/bin/bash
# Fourteenth user trial (a buyer comparing clusters before buying, a student following docs/course.md end to end, a
# Kubernetes / cloud user who knows only the instance type, a user feeding ccsim's JSON/CSV to scripts). Each
# friction, fixed and kept fixed:
#  - the instance type alone was not a machine: `machine:instance=a3-megagpu-8g,nodes=2` was refused "missing 'gpu='",
#    and every AWS type (p5.48xlarge, p5e, p5en, p6-b200, p6-b300) needed nics= spelled out ("add nics=MxSPEED")
#    while Google's set theirs;
#  - NICs set by an instance type said "(given)" in their links' source, though the user gave none;
#  - --nccl-version (the image's NCCL) was read but never said back: no header line named the release predicted;
#  - an AWS type with another GPU (`gpu=h100,instance=p6-b200.48xlarge`) was accepted silently (Google's were refused);
#  - AMD's Pensando Pollara 400 NIC (`kind=pollara`) was refused, though it is RDMA over Ethernet (RoCE) as sold;
#  - `--json` / `--csv` were refused without naming `--format json`; `all_reduce_perf ... --format json` said "not
#    expected: json --format", its words reversed, without saying where JSON comes from;
#  - the main command's JSON and CSV fields, units and exit statuses were nowhere in README (python.md's table only);
#  - docs/course.md had no Reduce + Broadcast (the course's "log p rounds each") and said the course's training
#    claims were "outside this page" without saying where they are (training-scenarios.md, training.md).
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL|HSA|SLURM|OMPI|PMI)_[A-Z0-9_]*'); do unset "$v"; done
. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

rows() { "$ccsim" "$@" 2>&1 | grep -E '^ +[0-9]'; }

# --- (c) a cloud user with an instance type and nothing else ------------------------------------------------------
# AWS's p5en.48xlarge: 8 H200, 16 EFAv3 devices of 200 Gb/s (cloud_machines.hpp); the long form is the same machine.
short=$(rows --topo machine:instance=p5en.48xlarge,nodes=2 --model nccl -b 1M -e 1G -f 32)
long=$(rows --topo machine:gpu=h200,nodes=2,nics=16x200G,kind=efa,instance=p5en.48xlarge --model nccl -b 1M -e 1G -f 32)
[ -n "$short" ] && [ "$short" = "$long" ] || bad "machine:instance=p5en.48xlarge: '$short' vs the long form '$long'"
hdr=$("$ccsim" --topo machine:instance=p5en.48xlarge,nodes=2 -b 1M -e 1M 2>&1 | grep '^# topology')
echo "$hdr" | grep -q "cluster-2xmachine-8xh200-nvswitch (generated: 2 nodes, 16 x 200 Gb/s efa NIC(s) each, one switch, instance p5en.48xlarge), 16 ranks" ||
  bad "p5en header: $hdr"
for t in "p5.48xlarge 8xh100 32 x 100" "p5e.48xlarge 8xh200 32 x 100" "p6-b200.48xlarge 8xb200 8 x 400" \
         "p6-b300.48xlarge 8xb300 16 x 400" "p4d.24xlarge 8xa100 4 x 100"; do
  set -- $t
  h=$("$ccsim" --topo "machine:instance=$1,nodes=2" -b 1M -e 1M 2>&1 | grep '^# topology')
  echo "$h" | grep -q "machine-$2-nvswitch (generated: 2 nodes, $3 $4 $5 Gb/s efa NIC(s) each" || bad "instance=$1: $h"
done
# A Google type alone: its GPU and NICs, the rows of the spelled-out form.
g1=$(rows --topo machine:instance=a3-megagpu-8g,nodes=2 --model nccl -b 1M -e 1G -f 32)
g2=$(rows --topo machine:gpu=h100,nodes=2,instance=a3-megagpu-8g --model nccl -b 1M -e 1G -f 32)
[ -n "$g1" ] && [ "$g1" = "$g2" ] || bad "machine:instance=a3-megagpu-8g: '$g1' vs '$g2'"
# A4X: 4 GPUs per host (the type's, not the machine's default 8).
"$ccsim" --topo machine:instance=a4x-highgpu-4g,nodes=2 -b 1M -e 1M 2>&1 | grep -q "machine-4xgb200-nvswitch (generated: 2 nodes, 4 x 400 Gb/s gib" ||
  bad "machine:instance=a4x-highgpu-4g is not 4 GB200 with 4 x 400G gIB"
refused_one_line "instance=p6-b200.48xlarge has b200 GPUs, not h100" --topo machine:gpu=h100,nodes=2,instance=p6-b200.48xlarge -b 1M -e 1M
refused_one_line "instance=p5.4xlarge: ccsim does not list this type's NICs" --topo machine:gpu=h100,gpus=1,nodes=2,instance=p5.4xlarge -b 1M -e 1M
refused_one_line "instance 'a3-mega' is not a Google Cloud GPU machine type ccsim knows" --topo machine:instance=A3-Mega,nodes=2 -b 1M -e 1M
refused_one_line "instance=g6e.48xlarge: ccsim does not list this type's GPUs and NICs" --topo machine:instance=g6e.48xlarge,nodes=2 -b 1M -e 1M
refused_one_line "instance 'g6e.48xlarge' is not in aws-ofi-nccl's platform table" --topo machine:gpu=h100,nodes=2,nics=8x400G,instance=g6e.48xlarge --model nccl -b 1M -e 1M
# NICs that come from the type's table say so in their links' source (they said "(given)": nobody gave them).
"$ccsim" topo show machine:gpu=h100,nodes=2,instance=a3-megagpu-8g | grep -q "tcpxo NIC port at 25 GB/s per direction (instance a3-megagpu-8g: Google's Networking and GPU machines page" ||
  bad "a3-megagpu-8g's NICs: source does not name the machine type"
"$ccsim" topo show machine:instance=p5.48xlarge,nodes=2 | grep -q "efa NIC port at 12.5 GB/s per direction (instance p5.48xlarge: AWS's instance page" ||
  bad "p5.48xlarge's NICs: source does not name the instance type"
# The image's NCCL version, given, is said back (it was read silently: the header named no release).
"$ccsim" --topo machine:instance=a3-ultragpu-8g,nodes=2 --model nccl --nccl-version 2.18.3 -b 1M -e 1M | grep -q "^# model sees: .*, release NCCL 2.18.3 (--nccl-version)$" ||
  bad "--nccl-version 2.18.3 not named in the header"
"$ccsim" --topo machine:instance=a3-ultragpu-8g,nodes=2 --model nccl -b 1M -e 1M | grep -q "release NCCL" && bad "a release named without --nccl-version"
# topo gen takes the AWS type's NICs as it takes Google's.
"$ccsim" topo gen cluster --nodes 2 --node hgx-h100 --instance p5.48xlarge -o "$tmp/p5.json" >/dev/null 2>&1 ||
  bad "topo gen cluster --instance p5.48xlarge failed"
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
lanes = sum(l.get("lanes", 1) for l in t["links"] if l.get("type") == "efa")
assert lanes == 2 * 32 and all(l["bw"] == "12.5 GB/s" for l in t["links"] if l.get("type") == "efa"), lanes' "$tmp/p5.json" 2>/dev/null ||
  bad "topo gen --instance p5.48xlarge: not 32 EFA NICs per node"

# --- (a) a buyer: AMD's Pollara 400 NIC is RoCE as sold --------------------------------------------------------------
p1=$(rows --topo machine:gpu=mi355x,nodes=2,nics=8x400G,kind=pollara --model nccl -b 1M -e 1G -f 32)
p2=$(rows --topo machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce --model nccl -b 1M -e 1G -f 32)
[ -n "$p1" ] && [ "$p1" = "$p2" ] || bad "kind=pollara: '$p1' vs roce '$p2'"
refused_one_line "kind 'ultranet' is not ib, roce" --topo machine:gpu=mi355x,nodes=2,nics=8x400G,kind=ultranet -b 1M -e 1M

# --- (d) a script reading the output --------------------------------------------------------------------------------
refused_one_line "--json: no such flag; did you mean --format json?" --topo dgx1 --json
refused_one_line "--csv: no such flag; did you mean --format csv?" --topo dgx1 -b 1M -e 1M --csv
refused_one_line "The following arguments were not expected: --format json" all_reduce_perf -b 1M -e 1M -g 8 --topo dgx1 --format json
refused_one_line "ccsim's main command writes the prediction as json" all_reduce_perf -b 1M -e 1M -g 8 --topo dgx1 --format json
refused_one_line "The following arguments were not expected: --bogus 3" --topo dgx1 --bogus 3
# The fields a script reads are documented in README (every top-level key, row key, choice key and CSV column).
NCCL_ALGO=Tree "$ccsim" --topo dgx1 --model nccl -b 1M -e 2M --why --links --format json >"$tmp/o.json" 2>"$tmp/o.err" ||
  bad "--format json exited $?"
python3 - "$tmp/o.json" "$src/README.md" <<'EOF' || bad "README does not document the JSON fields above"
import json, re, sys
d = json.load(open(sys.argv[1]))  # stdout is the document alone
readme = open(sys.argv[2]).read()
sec = readme[readme.index("### Output for scripts"):readme.index("## Drop-in for nccl-tests")]
keys = set(d) | set(d["rows"][0]) | set(d["rows"][0]["choice"])
missing = sorted(k for k in keys if f"`{k}`" not in sec)
assert not missing, missing
EOF
for model in fifo nccl; do
  head=$("$ccsim" --topo dgx1 --model $model -b 1M -e 1M --format csv 2>/dev/null | head -1)
  missing=""
  for col in ${head//,/ }; do
    sed -n '/^### Output for scripts/,/^## Drop-in for nccl-tests/p' "$src/README.md" | grep -q -- "$col" || missing="$missing $col"
  done
  [ -z "$missing" ] || bad "CSV columns ($model) not in README's Output for scripts:$missing"
done

# --- (b) a student following docs/course.md -------------------------------------------------------------------------
# Reduce + Broadcast by binomial trees on the ideal 8-GPU machine: 2 lg p rounds of the whole vector, by hand
# 6 x 5 us + 6 x 67108864 B / 25e9 B/s = 16136.127 us.
total=$("$ccsim" explain --op allreduce --algo reduce_bcast --ranks 8 --size 64M --alpha 5us --bw 25GB/s | awk '$1 == "total" { print $2 }')
awk -v t="$total" 'BEGIN { h = 6 * 5 + 6 * 67108864 / 25e3; exit !(t != "" && t - h < 0.001 && h - t < 0.001) }' ||
  bad "reduce_bcast total $total, by hand 16136.127"
grep -q "^## Reduce + Broadcast: log p rounds each" "$src/docs/course.md" || bad "docs/course.md has no Reduce + Broadcast section"
grep -q "\[training-scenarios.md\](training-scenarios.md)" "$src/docs/course.md" ||
  bad "docs/course.md does not point to training-scenarios.md for the course's training claims"

[ "$fails" -eq 0 ] && echo "all new-user friction checks (14th trial) pass"
exit $((fails > 0))
