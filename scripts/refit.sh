#!/bin/bash
# Regenerates every fitted parameter set in models/ (a benchmark-style script, not a unit test):
#  1. one set per measured machine, models/fit-nccl-machine-<trace>.json, fitted on that machine's own
#     nccl-tests trace (models/traces/index.json says which topology it ran on). The same rule for all:
#       --fit-protocols     when the trace has at least 16 timed rows (else too few for 6 parameters);
#       --hold launch_us,step_us  when its smallest size is >= 1 MiB (the sweep cannot see latency).
#     Each file records its command and a 2-fold cross-validation (even rows fitted on odd and back).
#  2. every other models/fit-*.json, by re-running the command recorded inside it.
# Usage: scripts/refit.sh [--ccsim PATH] [--only-machines]
set -uo pipefail
cd "$(dirname "$0")/.."
ccsim=build/ccsim; only_machines=0
while [ $# -gt 0 ]; do
  case "$1" in
    --ccsim) ccsim="$2"; shift ;;
    --only-machines) only_machines=1 ;;
    *) echo "refit.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$ccsim" ] || { echo "refit.sh: $ccsim not built (run scripts/setup.sh)" >&2; exit 2; }

# One line per nccl-tests trace: the calibrate arguments (topology, hints, rule-based flags) and the output
# (the rule is in scripts/check_fits.py, which ctest fits_current runs to tell a stale fit; it names the traces
# it skips: multi-run files, fewer than 4 timed rows).
plan=$(python3 scripts/check_fits.py --plan) || { echo "refit.sh: cannot read models/traces/index.json" >&2; exit 2; }

status=0
run() { # $@: calibrate arguments
  local out="${*: -1}"
  if "$ccsim" calibrate "$@" >/tmp/refit.$$ 2>&1; then
    echo "refit: $out"
  else
    echo "refit: FAILED $out: $(tail -n 1 /tmp/refit.$$)"; status=1
  fi
}
while read -r line; do
  [ -n "$line" ] && eval "run $line"
done <<<"$plan"

if [ "$only_machines" = 0 ]; then
  for f in models/fit-*.json; do
    case "$f" in models/fit-nccl-machine-*) continue ;; esac
    cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"])' "$f")
    case "$cmd" in "ccsim calibrate "*) ;; *) echo "refit: $f: recorded command is not 'ccsim calibrate ...'"; status=1; continue ;; esac
    eval "run ${cmd#ccsim calibrate }"
  done
  # The shipped class-level default (what --model nccl applies): its own one command, recorded in the file.
  python3 scripts/validate_table.py --ccsim "$ccsim" --write-default models/params-nccl-default.json || status=1
fi
rm -f /tmp/refit.$$
exit $status
