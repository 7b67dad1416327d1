#!/bin/bash
# Benchmark (not a unit test): runs `ccsim compare` over every nccl-tests trace listed in
# models/traces/index.json, with each model, and prints one line per (trace, model) with the median
# |busbw error| for sizes >= 1 MiB and over all sizes, against the targets 5% and 15%.
# The machine of each trace comes from index.json; a missing preset is reported as MISSING (and makes
# the exit status 1) unless --stand-ins is given, which then uses the entry's generated stand-in.
#
# With --own-fits each trace is predicted with models/fit-nccl-machine-<trace>.json (its machine's own
# calibration, scripts/refit.sh), and the line adds that fit's held-out error: the worse of its two
# folds (even rows predicted from a fit on the odd ones, and back), so in-sample luck shows.
#
# Without --params every model runs bare (--params none), not with the shipped default
# models/params-nccl-default.json (give it with --params to see what a user gets by default; in-sample).
#
# With --table [FILE] it runs the three-column benchmark instead (described only / calibrated on other
# machine classes / own machine held out by halves; scripts/validate_table.py) and writes FILE (markdown).
#
# With --holdout [FILE] it predicts the held-out traces of models/holdout/ (machines no fit has seen) with the shipped
# default calibration, as a user would, and writes FILE (markdown; scripts/validate_holdout.py, models/HOLDOUT.md).
#
# Usage: scripts/validate.sh [--holdout [FILE]] [--table [FILE]] [--stand-ins] [--models "fifo nccl"] [--params FILE | --own-fits] [--plots DIR] [--ccsim PATH]
set -uo pipefail
cd "$(dirname "$0")/.."
ccsim=build/ccsim; stand_ins=0; models="fifo nccl"; params=""; plots=""; own=0
while [ $# -gt 0 ]; do
  case "$1" in
    --stand-ins) stand_ins=1 ;;
    --models) models="$2"; shift ;;
    --params) params="$2"; shift ;;
    --own-fits) own=1 ;;
    --plots) plots="$2"; shift ;;
    --ccsim) ccsim="$2"; shift ;;
    --table) exec python3 scripts/validate_table.py --ccsim "$ccsim" ${2:+--output "$2"} ;;
    --holdout) exec python3 scripts/validate_holdout.py --ccsim "$ccsim" ${2:+--output "$2"} ;;
    *) echo "validate.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$ccsim" ] || { echo "validate.sh: $ccsim not built (run scripts/setup.sh)" >&2; exit 2; }
[ -n "$plots" ] && mkdir -p "$plots"
index=models/traces/index.json
# One |-separated line per trace: file, hardware, topology, stand_in, gpus, ranks, arch, algo, nccl_version
entries=$(python3 - "$index" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))["traces"]:
    if e.get("kind") != "nccl-tests":
        continue
    print("|".join(str(e.get(k, "")) for k in ("file", "hardware", "topology", "stand_in", "gpus", "ranks", "arch", "algo", "nccl_version")))
PY
) || { echo "validate.sh: cannot read $index" >&2; exit 2; }

# Reads one `ccsim compare --format json` on stdin, prints the table line, fails when a target is missed.
summarise='
import json, sys
j = json.load(sys.stdin)
f, model, used, topo, fit = sys.argv[1:6]
s = j["summary"]
ge, al = s["median_abs_err_pct_ge_1MiB"], s["median_abs_err_pct_all"]
ok = (ge is None or ge <= 5.0) and al <= 15.0
fmt = lambda v: "-" if v is None else f"{v:.1f}%"
tag = ("ok" if ok else "MISS") + (" (stand-in)" if used != topo else "")
held, na = "", "n/a"
if fit:
    cv = json.load(open(fit)).get("cross_validation", [])
    worst = lambda k: max((h[k] for h in cv if h.get(k) is not None), default=None)
    hge, hal = worst("median_abs_err_pct_ge_1MiB"), worst("median_abs_err_pct_all")
    held = f" {fmt(hge):>9} {fmt(hal):>9}" if cv and (hge is not None or hal is not None) else f" {na:>9} {na:>9}"
    if hge is not None and (hge > 5.0 or (hal or 0) > 15.0):
        tag += " (held-out miss)"
op = j.get("op")
print(f"{f[:62]:<62} {op:<14} {model:<6} {used[:22]:<22} {fmt(ge):>9} {fmt(al):>9}{held}  {tag}")
sys.exit(0 if ok else 1)
'
status=0
if [ "$own" = 1 ]; then
  [ -n "$params" ] && { echo "validate.sh: --params and --own-fits exclude each other" >&2; exit 2; }
  models="nccl"
  printf '%-62s %-14s %-6s %-22s %9s %9s %9s %9s  %s\n' "trace" "op" "model" "topology" "med>=1MiB" "med(all)" "held>=1M" "held(all)" "verdict"
else
  printf '%-62s %-14s %-6s %-22s %9s %9s  %s\n' "trace" "op" "model" "topology" "med>=1MiB" "med(all)" "verdict"
fi
while IFS='|' read -r file hw topo stand gpus ranks arch algo version; do
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
    # What the run used where its file does not say (as validate_table.py and refit.sh apply it).
    [ -n "$algo" ] && args+=(--nccl-algo "$algo")
    [ -n "$version" ] && args+=(--nccl-version "$version")
    [ -n "$gpus" ] && [ "$used" = "$topo" ] && args+=(--gpus "$gpus")
    # No --params: the bare model (--model nccl would otherwise apply the shipped class-level default,
    # which was fitted on these very traces).
    [ -n "$params" ] && args+=(--params "$params")
    [ -z "$params" ] && [ "$own" = 0 ] && args+=(--params none)
    fit=""
    if [ "$own" = 1 ]; then
      fit="models/fit-nccl-machine-${file%.txt}.json"
      [ -f "$fit" ] || { printf '%-62s %s\n' "$file" "MISSING $fit (run scripts/refit.sh)"; status=1; continue; }
      args+=(--params "$fit")
    fi
    [ -n "$plots" ] && args+=(--plot "$plots/${file%.txt}-$model.png")
    if ! out=$("$ccsim" "${args[@]}" 2>/tmp/validate.$$); then
      printf '%-62s %-14s %-6s %-22s %9s %9s  %s\n' "$file" "-" "$model" "${used:0:22}" "-" "-" "ERROR: $(head -c 200 /tmp/validate.$$)"
      status=1
      continue
    fi
    printf '%s' "$out" | python3 -c "$summarise" "$file" "$model" "$used" "$topo" "$fit" || status=1
  done
done <<<"$entries"
rm -f /tmp/validate.$$
echo "targets: median |busbw err| <= 5% for sizes >= 1 MiB and <= 15% over all sizes, per trace"
exit $status
