#!/bin/bash
# Hybrid-parallel scenarios end to end: the shipped Megatron-LM row runs and prints its breakdown,
# --timeline writes a Chrome trace with compute, tensor-parallel and pipeline tracks, --format json
# parses, and --allow-oversubscribed-memory runs what the memory check refuses.
set -u
ccsim="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

out=$("$ccsim" scenario "$src/scenarios/megatron_gpt_7.5b_128xa100.json") || fail "shipped 7.5B scenario exited $?"
for want in "step " "compute" "exposed tp communication" "data-parallel tail" "memory per GPU"; do
  grep -qF "$want" <<<"$out" || fail "7.5B output lacks '$want'"
done

cat >"$tmp/pp.json" <<'J'
{"transformer": {"layers": 8, "hidden": 1024, "heads": 16, "seq": 1024, "vocab": 51200},
 "parallel": {"tp": 2, "pp": 2, "dp": 2, "micro_batches": 4},
 "topology": "machine:gpu=a100,gpus=8", "network": {"model": "nccl"}}
J
"$ccsim" scenario "$tmp/pp.json" --timeline "$tmp/tl.json" >"$tmp/out.txt" || fail "pp scenario exited $?"
grep -qF "pipeline bubble" "$tmp/out.txt" || fail "pp output lacks the bubble"
python3 - "$tmp/tl.json" <<'P' || fail "timeline check"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
tracks = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "X"}
tids = {e["tid"] for e in ev if e["ph"] == "X"}
assert {"compute", "tp", "pp wait", "dp"} <= names, names
assert {0, 1} <= {p for p, _ in tracks}, "both stages"
assert 0 in tids and 1 in tids and 5 in tids, tids  # compute, tp, pp wait slices
assert all(e["dur"] >= 0 for e in ev if e["ph"] == "X")
P
"$ccsim" scenario "$tmp/pp.json" --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["step_ms"] > d["compute_ms"] > 0' || fail "json"

"$ccsim" scenario "$src/tests/data/bad_scenarios/hybrid_oom.json" >/dev/null 2>&1 && fail "oom scenario ran without the flag"
"$ccsim" scenario "$src/tests/data/bad_scenarios/hybrid_oom.json" --allow-oversubscribed-memory >"$tmp/oom.txt" || fail "--allow-oversubscribed-memory exited $?"
grep -qF "memory per GPU" "$tmp/oom.txt" || fail "oom output"
echo "hybrid scenarios: $fails failed"
[ "$fails" -eq 0 ]
