#!/bin/bash
# --why: after the table, NCCL's own estimate of every algorithm/protocol its tuner weighs at each size, the pick
# marked. Values by hand from models/nccl.json (NCCL 2.30's tables): on 8 x H100 one node, an 8 B allreduce is
# latency alone, baseLat + 2(p-1) hops of hwLat on NVLink for a ring, baseLat + 2(p-1) x hwLat for the one-node
# tree (the 8 B over the bandwidth adds < 0.005 us):
#   ring/LL     6.6 + 14 x 0.6  = 15.00 (the pick: the fastest)
#   ring/LL128 14.0 + 14 x 1.9  = 40.60
#   ring/Simple 8.4 + 14 x 3.4  = 56.00
#   tree/LL     6.8 + 14 x 0.6  = 15.20
set -u
ccsim="$1"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }
. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

out=$("$ccsim" --topo machine:gpu=h100 --model nccl -b 8 -e 8 --why 2>&1) || { echo "FAIL --why exited $?: $out"; fail=1; }
why=$(echo "$out" | awk '/^# why/ { on = 1; next } on && /^# *size/ { for (i = 3; i <= NF; ++i) col[i - 1] = $i; next }
  on && $1 == 8 { for (i = 2; i <= NF; ++i) print col[i], $i }')
want() { echo "$why" | grep -qxF "$1 $2" || { echo "FAIL --why 8 B: $1 is not $2: $why"; fail=1; }; }
want ring/LL 15.00*
want ring/LL128 40.60
want ring/Simple 56.00
want tree/LL 15.20
# The pick is the choice column's pair.
echo "$out" | awk '$1 == 8 && NF >= 9 { print $9 }' | grep -qx "ring/LL" || { echo "FAIL --why: the choice column is not ring/LL: $out"; fail=1; }

# JSON: every row's weighed pairs, the pick the fastest of them at every size (NCCL's tuner takes the minimum).
"$ccsim" --topo machine:gpu=h100,nodes=2,nics=8x400G,kind=ib --model nccl -b 8 -e 1G -f 8 --why --format json |
  python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
assert rows, "no rows"
for r in rows:
    c = r["choice"]; w = c["weighed"]
    assert len(w) >= 3, (r["size"], w)
    best = min(w, key=lambda x: x["time_us"])
    assert (best["algo"], best["proto"]) == (c["algo"], c["proto"]), (r["size"], c["algo"], c["proto"], best)
' || { echo "FAIL --why --format json: a row's pick is not the fastest pair it weighed"; fail=1; }
# Without --why the JSON carries no weighed pairs (outputs stay as they were).
"$ccsim" --topo machine:gpu=h100 --model nccl -b 8 -e 8 --format json | grep -q weighed && { echo "FAIL: weighed printed without --why"; fail=1; }

refused_one_line "--why: only --model nccl" --topo machine:gpu=h100 --model fifo -b 8 -e 8 --why
refused_one_line "--why: a CSV file" --topo machine:gpu=h100 --model nccl -b 8 -e 8 --why --format csv

[ $fail = 0 ] && echo "why: all checks passed"
exit $fail
