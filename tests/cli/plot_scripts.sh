#!/bin/bash
# Every scripts/plot_*.py, run as the README runs it (the script itself, so its shebang picks the
# interpreter), on real ccsim output in a temp dir: each must write a non-empty PNG.
# Exit 77 (skipped) only when no interpreter here has matplotlib; if some python3 has it but a script's
# shebang interpreter does not, the README's commands would fail, and so does this test.
# Usage: plot_scripts.sh path/to/ccsim path/to/source-dir
set -u
ccsim="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
has_mpl() { [ -x "$1" ] || command -v "$1" >/dev/null 2>&1 || return 1; "$1" -c "import matplotlib" >/dev/null 2>&1; }
png() { # file: a PNG signature and more than a header
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && [ "$(wc -c <"$1")" -gt 1000 ]
}

any=""
for py in /usr/bin/python3 python3; do has_mpl "$py" && any="$py" && break; done
if [ -z "$any" ]; then
  echo "SKIP: no python3 here has matplotlib (apt-get install python3-matplotlib, or scripts/setup.sh)"
  exit 77
fi

# Real ccsim output to draw.
"$ccsim" --topo dgx1 -b 1K -e 64M --format json >"$tmp/rings6.json" || fail "ccsim sweep exited $?"
"$ccsim" --topo dgx1 -b 1K -e 64M --ring 0,1,2,3,4,5,6,7 --format json >"$tmp/naive.json" || fail "ccsim --ring sweep exited $?"
"$ccsim" --topo dgx1 -b 1M -e 1M --timeline "$tmp/run.json" >/dev/null || fail "ccsim --timeline exited $?"
trace="$src/models/traces/dgx1-v100-8gpu-allreduce-konnase.txt"
"$ccsim" compare --topo dgx1-v100 --trace "$trace" --format json >"$tmp/compare.json" || fail "ccsim compare exited $?"

for script in "$src"/scripts/plot_*.py; do
  name=$(basename "$script")
  n=$((n+1))
  interp=$(head -1 "$script" | sed -n 's/^#! *//p')
  [ -x "$script" ] || { fail "$name is not executable (README runs it directly)"; continue; }
  # "/usr/bin/env python3" -> python3 on PATH; "/usr/bin/python3" -> itself.
  case "$interp" in */env\ *) interp=${interp##* } ;; esac
  has_mpl "$interp" || { fail "$name: its interpreter '$interp' has no matplotlib, but $any does"; continue; }
  out="$tmp/out-${name%.py}"
  case "$name" in
    plot_sweep.py) "$script" "6 packed rings=$tmp/rings6.json" "rank order=$tmp/naive.json" -o "$out" >"$tmp/log" 2>&1 ;;
    plot_timeline.py) "$script" "$tmp/run.json" -o "$out" >"$tmp/log" 2>&1 ;;
    plot_compare.py) "$script" "$tmp/compare.json" "$out.png" >"$tmp/log" 2>&1 ;;
    plot_sweep_table.py) "$ccsim" sweep "$src/docs/sweep-example.json" -o "$tmp/sweep.csv" && "$script" "$tmp/sweep.csv" -o "$out" --best >"$tmp/log" 2>&1 ;;
    *) fail "$name: no case in tests/cli/plot_scripts.sh; add how to run it"; continue ;;
  esac
  rc=$?
  if [ $rc -ne 0 ] || ! png "$out.png"; then fail "$name exited $rc or wrote no PNG"; sed 's/^/  | /' "$tmp/log"; fi
done
[ "$n" -ge 3 ] || fail "expected at least 3 plot scripts, found $n"

# Valid JSON or CSV of another shape is one line naming the file, exit 2 (was a traceback: KeyError, AttributeError,
# TypeError), also with a flag before the file (the line named argv[1], "-o"); an output that is the input is refused
# and the input kept; ccsim's own size-0 rows (-b 0) are left off the log2 axis, not a division by zero.
one_line() { # what, command...: exit 2 and one line on stderr that names the file
  local what="$1" err rc; shift
  err=$("$@" 2>&1 >/dev/null); rc=$?
  n=$((n+1)); { [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"$tmp/"* ]]; } ||
    fail "$what: exit $rc, stderr: $err"
}
echo '[]' >"$tmp/list.json"
echo '{"traceEvents": [{"ph": "X"}]}' >"$tmp/nocat.json"
echo '{"rows": [{"size": 1}], "summary": {}}' >"$tmp/norows.json"
printf 'point,error,size\n0,,8\n' >"$tmp/nocols.csv"
one_line "plot_timeline on a JSON list" "$src/scripts/plot_timeline.py" -o "$tmp/x" "$tmp/list.json"
one_line "plot_timeline on an event without cat" "$src/scripts/plot_timeline.py" "$tmp/nocat.json" -o "$tmp/x"
one_line "plot_compare on rows without busbw" "$src/scripts/plot_compare.py" "$tmp/norows.json" "$tmp/x.png"
one_line "plot_sweep_table on a table without topology" "$src/scripts/plot_sweep_table.py" "$tmp/nocols.csv" -o "$tmp/x.png"
cp "$tmp/compare.json" "$tmp/keep.json"
one_line "plot_compare writing over its input" "$src/scripts/plot_compare.py" "$tmp/keep.json" "$tmp/keep.json"
n=$((n+1)); cmp -s "$tmp/keep.json" "$tmp/compare.json" || fail "plot_compare replaced its input"
"$ccsim" --topo dgx1 -b 0 -e 64 --format csv >"$tmp/zero.csv" || fail "ccsim -b 0 exited $?"
n=$((n+1)); "$src/scripts/plot_sweep.py" "$tmp/zero.csv" -o "$tmp/zero" >"$tmp/log" 2>&1 && png "$tmp/zero.png" ||
  { fail "plot_sweep on ccsim -b 0 output"; sed 's/^/  | /' "$tmp/log"; }

# ccsim compare --plot runs plot_compare.py itself.
"$ccsim" compare --topo dgx1-v100 --trace "$trace" --plot "$tmp/cmp.png" >/dev/null 2>"$tmp/log" && png "$tmp/cmp.png" ||
  { fail "ccsim compare --plot wrote no PNG"; sed 's/^/  | /' "$tmp/log"; }

echo "plot scripts: $n scripts, $fails failures"
[ "$fails" -eq 0 ]
