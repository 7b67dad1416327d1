#!/bin/bash
# `ccsim scenario` builds its model as the main command does (sim/cli/run_command.cpp model_options): under --model
# nccl with no --params, the shipped calibration models/params-nccl-default.json. So a training step's allreduce is
# the main command's prediction for that allreduce. Second route to the numbers: with one 1 GiB bucket limit and no
# overlap, the 300M-parameter model's fp32 gradients (1.2e9 B) go as two allreduces, 1 GiB and 1.2e9 - 1 GiB =
# 126258176 B, one after the other, so the 8-GPU step's comm_ms is the sum of the main command's two times for those
# sizes on the same machine with the same --params (none given, a file, or none).
set -u
ccsim="$1"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
scen() { "$ccsim" scenario scenarios/lm300m_dgx1.json --model nccl --bucket-size 1G --no-overlap "$@"; }

main_ms() { # the main command's two allreduce times summed, in ms: main_ms TOPO [flags...]
  local topo=$1 t=0 b x; shift
  for b in 1073741824 126258176; do
    x=$("$ccsim" --topo "$topo" --model nccl "$@" -b $b -e $b --format csv | tail -1 | cut -d, -f6) || return 1
    t=$(/usr/bin/python3 -c "print($t + $x / 1000)")
  done
  echo "$t"
}
step_comm_ms() { # the 8-GPU fp32 step's comm_ms: step_comm_ms TOPO [flags...]
  local topo=$1; shift
  scen --topo "$topo" "$@" --format json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(s["comm_ms"] for s in d["steps"] if s["gpus"] == 8 and s["grad_dtype"] == "float"))'
}
close() { /usr/bin/python3 -c "import sys; sys.exit(abs($1 - $2) > 1e-6 * $2)"; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# A parameter set of one's own: the shipped one with 5 us more per message (any file calibrate writes would do).
/usr/bin/python3 - models/params-nccl-default.json "$tmp/mine.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["params"]["step_us"] = d["params"].get("step_us", 0) + 5  # inside "params", where the loader reads it
json.dump(d, open(sys.argv[2], "w"))
PY

for topo in machine:gpu=h100 dgx1; do
  for p in "" "--params none" "--params $tmp/mine.json"; do
    # shellcheck disable=SC2086
    got=$(step_comm_ms "$topo" $p) || { fail "$topo scenario $p: exit $?"; continue; }
    # shellcheck disable=SC2086
    want=$(main_ms "$topo" $p) || { fail "$topo main command $p: exit $?"; continue; }
    close "$got" "$want" || fail "$topo ${p:-(default calibration)}: scenario comm_ms $got, the main command's two allreduces $want"
  done
  # The test means something only where the calibration moves the number, and where one's own set differs from it.
  [ "$(step_comm_ms "$topo")" != "$(step_comm_ms "$topo" --params none)" ] || fail "$topo: the shipped calibration changed nothing"
  [ "$(step_comm_ms "$topo")" != "$(step_comm_ms "$topo" --params "$tmp/mine.json")" ] || fail "$topo: one's own parameter set changed nothing"
done

# The parameter set is named as the main command names it: header line and JSON (scenario.network_params).
label='models/params-nccl-default.json (shipped default)'
out=$(scen --topo dgx1) || fail "scenario: exit $?"
grep -qF "; network model nccl + $label" <<<"$out" || fail "header: $(grep '^# buckets' <<<"$out")"
got=$(scen --topo dgx1 --format json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["scenario"].get("network_params"))')
[ "$got" = "$label" ] || fail "JSON scenario.network_params: $got"
got=$(scen --topo dgx1 --params none --format json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["scenario"].get("network_params"))')
[ "$got" = "None" ] || fail "--params none: JSON scenario.network_params $got"
scen --topo dgx1 --params none | grep -q "params-nccl-default" && fail "--params none, yet the header names the default"
# Another model takes no default (it was fitted for nccl alone), as in the main command.
"$ccsim" scenario scenarios/lm300m_dgx1.json --model fifo | grep -q "params-nccl-default" && fail "--model fifo named the nccl default"
# A hybrid-parallel step names it too.
"$ccsim" scenario scenarios/llama3_70b_4x8_h100.json --model nccl | grep -qF "network model nccl + $label" ||
  fail "hybrid header: $("$ccsim" scenario scenarios/llama3_70b_4x8_h100.json --model nccl | grep 'network model')"
# A missing file is refused in one line naming it, exit 2, as by the main command.
err=$(scen --params "$tmp/nope.json" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "nope.json" <<<"$err" || fail "--params nope.json: exit $rc, '$err'"

# A sweep's scenario point builds the same model (the default and --params none), its 8-GPU fp32 comm_ms as above.
cat >"$tmp/plan.json" <<JSON
{"defaults": {"scenario": "scenarios/lm300m_dgx1.json", "topo": "dgx1", "model": "nccl", "bucket-size": "1G", "no-overlap": true},
 "points": [{"model": "nccl"}, {"params": "none"}]}
JSON
"$ccsim" sweep "$tmp/plan.json" -o "$tmp/s.csv" -j 1 2>"$tmp/err" || fail "sweep: $(cat "$tmp/err")"
got=$(/usr/bin/python3 - "$tmp/s.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(" ".join(r["comm_ms"] for r in rows if r["ranks"] == "8" and r["type"] == "float"), "errors:", sum(1 for r in rows if r["error"]))
PY
)
read -r d n rest <<<"$got"
grep -q "errors: 0$" <<<"$got" && close "$d" "$(main_ms dgx1)" && close "$n" "$(main_ms dgx1 --params none)" ||
  fail "sweep scenario points: $got (want $(main_ms dgx1) and $(main_ms dgx1 --params none))"

[ $fails -eq 0 ] && echo "scenario_calibration: all passed"
exit $((fails > 0))
