#!/bin/bash
# `ccsim scenario` takes the main command's what-ifs (one option set, sim/cli/run_options.hpp): a training step asks
# "what if NVLS were off" of the same model the main command asks it of. Second route to the numbers: with one 1 GiB
# bucket limit and no overlap, the 300M-parameter model's fp32 gradients (1.2e9 B) go as two allreduces, 1 GiB and
# 1.2e9 - 1 GiB = 126258176 B, one after the other, so the 8-GPU step's comm_ms is the sum of the main command's two
# times for those sizes with the same flags (both under the shipped calibration, neither given --params).
set -u
ccsim="$1"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
topo=machine:gpu=h100
scen=(scenario scenarios/lm300m_dgx1.json --topo "$topo" --model nccl --bucket-size 1G --no-overlap)

main_ms() { # the main command's two allreduce times summed, in ms, with the given what-ifs
  local t=0 b x
  for b in 1073741824 126258176; do
    x=$("$ccsim" --topo "$topo" --model nccl "$@" -b $b -e $b --format csv | tail -1 | cut -d, -f6) || return 1
    t=$(/usr/bin/python3 -c "print($t + $x / 1000)")
  done
  echo "$t"
}
step_comm_ms() { # the 8-GPU fp32 step's comm_ms of `ccsim scenario` with the given what-ifs
  "$ccsim" "${scen[@]}" "$@" --format json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(s["comm_ms"] for s in d["steps"] if s["gpus"] == 8 and s["grad_dtype"] == "float"))'
}
close() { /usr/bin/python3 -c "import sys; sys.exit(abs($1 - $2) > 1e-6 * $2)"; }

for w in "" "--nvls off" "--nccl-algo ring" "--nccl-proto Simple"; do
  # shellcheck disable=SC2086
  got=$(step_comm_ms $w) || { fail "scenario $w: exit $?"; continue; }
  # shellcheck disable=SC2086
  want=$(main_ms $w) || { fail "main command $w: exit $?"; continue; }
  close "$got" "$want" || fail "scenario ${w:-(no what-if)}: comm_ms $got, the main command's two allreduces $want"
done
[ "$(step_comm_ms)" != "$(step_comm_ms --nvls off)" ] || fail "--nvls off changed nothing on 8 H100s with NVSwitch"

# The what-ifs given are named: in the header line and in JSON (scenario.whatif); none given, neither appears.
out=$("$ccsim" "${scen[@]}" --nvls off --p2p off) || fail "--nvls off --p2p off: exit $?"
grep -q '^# buckets of 1 GiB .*; network model nccl + models/params-nccl-default.json (shipped default) (what-if: --p2p off, --nvls off)$' <<<"$out" || fail "header: $(grep '^# buckets' <<<"$out")"
got=$("$ccsim" "${scen[@]}" --nvls off --format json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["scenario"].get("whatif"))')
[ "$got" = "--nvls off" ] || fail "JSON scenario.whatif: $got"
"$ccsim" "${scen[@]}" | grep -q "what-if" && fail "no what-if given, yet the header names one"
# A bad value is refused in one line naming the flag, exit 2, as by the main command.
err=$("$ccsim" "${scen[@]}" --nvls maybe 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q -- "--nvls" <<<"$err" || fail "--nvls maybe: exit $rc, '$err'"

# A sweep's scenario point takes them too (the same options): nvls off on one point, its 8-GPU fp32 comm_ms as above.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/plan.json" <<JSON
{"defaults": {"scenario": "scenarios/lm300m_dgx1.json", "topo": "$topo", "model": "nccl", "bucket-size": "1G", "no-overlap": true},
 "grid": {"nvls": ["auto", "off"]}}
JSON
"$ccsim" sweep "$tmp/plan.json" -o "$tmp/s.csv" -j 1 2>"$tmp/err" || fail "sweep: $(cat "$tmp/err")"
got=$(/usr/bin/python3 - "$tmp/s.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["ranks"] == "8" and r["type"] == "float"]
print(" ".join(r["nvls"] + "=" + r["comm_ms"] for r in rows), "errors:", sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["error"]))
PY
)
want_off=$(main_ms --nvls off)
off=$(sed -n 's/.*off=\([0-9.]*\).*/\1/p' <<<"$got")
grep -q "errors: 0$" <<<"$got" && [ -n "$off" ] && close "$off" "$want_off" || fail "sweep scenario points: $got (nvls off want $want_off)"

[ $fails -eq 0 ] && echo "scenario_whatif: all passed"
exit $((fails > 0))
