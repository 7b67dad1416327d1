#!/bin/bash
# Benchmark (not a unit test): runs `ccsim compare` over every nccl-tests trace listed in
# models/traces/index.json, with each model, and prints one line per (trace, model) with the median
# |busbw error| for sizes >= 1 MiB and over all sizes, against the targets 5% and 15%.
# The machine of each trace comes from index.json; a missing preset is reported as MISSING (and makes
# the exit status 1) unless --stand-ins is given, which then uses the entry's generated stand-in.
#
# Usage: scripts/validate.sh [--stand-ins] [--models "fifo nccl"] [--params FILE] [--plots DIR] [--ccsim PATH]
set -uo pipefail
cd "$(dirname "$0")/.."
ccsim=build/ccsim; stand_ins=0; models="fifo nccl"; params=""; plots=""
while [ $# -gt 0 ]; do
  case "$1" in
    --stand-ins) stand_ins=1 ;;
    --models) models="$2"; shift ;;
    --params) params="$2"; shift ;;
    --plots) plots="$2"; shift ;;
    --ccsim) ccsim="$2"; shift ;;
    *) echo "validate.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$ccsim" ] || { echo "validate.sh: $ccsim not built (run scripts/setup.sh)" >&2; exit 2; }
[ -n "$plots" ] && mkdir -p "$plots"
index=models/traces/index.json
# One |-separated line per trace: file, hardware, topology, stand_in, gpus, ranks, arch
entries=$(python3 - "$index" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))["traces"]:
    if e.get("kind") != "nccl-tests":
        continue
    print("|".join(str(e.get(k, "")) for k in ("file", "hardware", "topology", "stand_in", "gpus", "ranks", "arch")))
PY
) || { echo "validate.sh: cannot read $index" >&2; exit 2; }

# Reads one `ccsim compare --format json` on stdin, prints the table line, fails when a target is missed.
summarise='
import json, sys
j = json.load(sys.stdin)
f, model, used, topo = sys.argv[1:5]
s = j["summary"]
ge, al = s["median_abs_err_pct_ge_1MiB"], s["median_abs_err_pct_all"]
ok = (ge is None or ge <= 5.0) and al <= 15.0
fmt = lambda v: "-" if v is None else f"{v:.1f}%"
tag = ("ok" if ok else "MISS") + (" (stand-in)" if used != topo else "")
op = j.get("op")
print(f"{f:<62} {op:<14} {model:<6} {used[:22]:<22} {fmt(ge):>9} {fmt(al):>9}  {tag}")
sys.exit(0 if ok else 1)
'
status=0
printf '%-62s %-14s %-6s %-22s %9s %9s  %s\n' "trace" "op" "model" "topology" "med>=1MiB" "med(all)" "verdict"
while IFS='|' read -r file hw topo stand gpus ranks arch; do
  [ -z "$file" ] && continue
  used="$topo"
  # Does the preset/generator resolve? (`ccsim topo show` fails with one line when it does not.)
  if ! "$ccsim" topo show "$topo" >/dev/null 2>/tmp/validate.$$; then
    why=$(head -c 160 /tmp/validate.$$)
    if [ "$stand_ins" = 1 ] && [ -n "$stand" ]; then
      used="$stand"
    else
      printf '%-62s %-14s %-6s %-22s %9s %9s  %s\n' "$file" "-" "-" "${topo:0:22}" "-" "-" "MISSING preset: $why"
      status=1
      continue
    fi
  fi
  for model in $models; do
    args=(compare --topo "$used" --trace "models/traces/$file" --model "$model" --format json)
    [ -n "$ranks" ] && args+=(--ranks "$ranks")
    [ -n "$arch" ] && args+=(--gpu-arch "$arch")
    [ -n "$gpus" ] && [ "$used" = "$topo" ] && args+=(--gpus "$gpus")
    [ -n "$params" ] && args+=(--params "$params")
    [ -n "$plots" ] && args+=(--plot "$plots/${file%.txt}-$model.png")
    if ! out=$("$ccsim" "${args[@]}" 2>/tmp/validate.$$); then
      printf '%-62s %-14s %-6s %-22s %9s %9s  %s\n' "$file" "-" "$model" "${used:0:22}" "-" "-" "ERROR: $(head -c 200 /tmp/validate.$$)"
      status=1
      continue
    fi
    printf '%s' "$out" | python3 -c "$summarise" "$file" "$model" "$used" "$topo" || status=1
  done
done <<<"$entries"
rm -f /tmp/validate.$$
echo "targets: median |busbw err| <= 5% for sizes >= 1 MiB and <= 15% over all sizes, per trace"
exit $status
