#!/bin/bash
# Seventeenth user trial (a new user of the visual outputs: the plot scripts, the timeline, explain's HTML page,
# the Graphviz drawing, following README.md and docs/ literally). Each friction, fixed and kept fixed:
#  - a mistyped flag to plot_sweep.py, plot_timeline.py or plot_sweep_table.py printed argparse's usage block and
#    then the error (two to four lines); plot_compare.py took `--bogus` for a file ("No such file or directory");
#  - the plot scripts wrote their figures straight to the final names: plot_sweep/plot_timeline -o X, where X.png
#    could be written and X.svg could not, left X.png beside the refusal (half a result), and an interrupted run
#    could leave a truncated picture; SIGINT ended in a 20-line traceback;
#  - `ccsim compare --plot out` (no .png) failed with matplotlib's "Format 'ccsim-tmp-...' is not supported";
#  - plot_sweep_table.py's sizes were whole units: 1536 KiB printed and drawn as "1 MiB"; `-o t.svg` wrote t.svg.png;
#  - `topo show --dot` labelled a link "ideal x1": kind and lanes, never its bandwidth (a crossbar's 25 GB/s);
#  - a truncated flag, `--timelin`, was answered "did you mean --timeline-size?" (the longest flag starting with it).
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL|HSA|SLURM|OMPI|PMI)_[A-Z0-9_]*'); do unset "$v"; done
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no matplotlib"; exit 0; }
scripts="$src/scripts"
png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
one_line() { # WHAT RC_WANTED STDERR_FILE RC: exactly one line on stderr and the exit code wanted
  local n; n=$(wc -l <"$3")
  [ "$4" = "$2" ] && [ "$n" = 1 ] || { bad "$1: exit $4 (want $2), $n stderr line(s):"; sed 's/^/  | /' "$3"; }
}

"$ccsim" --topo dgx1 -b 1K -e 64M --format json >"$tmp/rings6.json" || bad "ccsim --format json exited $?"
"$ccsim" --topo dgx1 -b 1M -e 1M --timeline "$tmp/run.json" >/dev/null || bad "ccsim --timeline exited $?"
"$ccsim" sweep "$src/docs/sweep-example.json" -o "$tmp/sweep.csv" >/dev/null 2>&1 || bad "ccsim sweep exited $?"
trace="$src/models/traces/dgx1-v100-8gpu-allreduce-konnase.txt"
"$ccsim" compare --topo dgx1-v100 --trace "$trace" --format json >"$tmp/cmp.json" || bad "ccsim compare exited $?"

# --- (a) a bad flag: one line naming it, exit 2 -------------------------------------------------------------------
for s in "plot_sweep.py $tmp/rings6.json" "plot_timeline.py $tmp/run.json" "plot_sweep_table.py $tmp/sweep.csv"; do
  set -- $s
  "$scripts/$1" "$2" --bogus -o "$tmp/never" >/dev/null 2>"$tmp/err"; rc=$?
  one_line "$1 --bogus" 2 "$tmp/err" "$rc"
  grep -qF -- "--bogus" "$tmp/err" || bad "$1 --bogus: the message does not name the flag: $(cat "$tmp/err")"
done
"$scripts/plot_compare.py" --bogus "$tmp/c.png" >/dev/null 2>"$tmp/err"; rc=$?
one_line "plot_compare.py --bogus" 2 "$tmp/err" "$rc"
grep -qF -- "--bogus: no such flag" "$tmp/err" || bad "plot_compare.py --bogus: not called a flag: $(cat "$tmp/err")"
# A missing value is a bad flag too.
"$scripts/plot_sweep.py" "$tmp/rings6.json" --metric >/dev/null 2>"$tmp/err"; rc=$?
one_line "plot_sweep.py --metric (no value)" 2 "$tmp/err" "$rc"
ls "$tmp"/never* >/dev/null 2>&1 && bad "a refused flag left an output: $(ls "$tmp"/never*)"

# --- (b) the PNG and the SVG, both or neither ----------------------------------------------------------------------
# X.svg is a folder: X.png can be written, X.svg cannot; the run is refused in one line and leaves no X.png.
for s in "plot_sweep.py $tmp/rings6.json" "plot_timeline.py $tmp/run.json"; do
  set -- $s
  rm -rf "$tmp/half" && mkdir -p "$tmp/half/x.svg"
  "$scripts/$1" "$2" -o "$tmp/half/x" >/dev/null 2>"$tmp/err"; rc=$?
  one_line "$1 -o half/x (x.svg a folder)" 2 "$tmp/err" "$rc"
  grep -qF "$tmp/half/x.svg" "$tmp/err" || bad "$1: the refusal does not name x.svg: $(cat "$tmp/err")"
  left=$(cd "$tmp/half" && ls -A | grep -v '^x.svg$')
  [ -z "$left" ] || bad "$1 -o half/x: left $left beside the refusal (half a result, or a temporary)"
done
# An existing picture is replaced whole, never truncated by a failed run: a folder that cannot be written keeps it.
"$scripts/plot_compare.py" "$tmp/cmp.json" "$tmp/c.png" >/dev/null 2>&1 && png "$tmp/c.png" || bad "plot_compare.py wrote no PNG"
"$scripts/plot_compare.py" "$tmp/cmp.json" "$tmp/no/such/folder/c.png" >/dev/null 2>"$tmp/err"; rc=$?
one_line "plot_compare.py into a missing folder" 2 "$tmp/err" "$rc"
grep -qF "$tmp/no/such/folder/c.png" "$tmp/err" || bad "plot_compare.py: the refusal names a temporary, not c.png: $(cat "$tmp/err")"
"$scripts/plot_sweep_table.py" "$tmp/sweep.csv" -o "$tmp/no/such/t.png" >/dev/null 2>"$tmp/err"; rc=$?
one_line "plot_sweep_table.py into a missing folder" 2 "$tmp/err" "$rc"
grep -qF "$tmp/no/such/t.png" "$tmp/err" || bad "plot_sweep_table.py: the refusal does not name t.png: $(cat "$tmp/err")"

# --- (c) ccsim compare --plot NAME without an extension: a PNG under that name ------------------------------------
"$ccsim" compare --topo dgx1-v100 --trace "$trace" --plot "$tmp/cmpplot" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 0 ] && png "$tmp/cmpplot" || { bad "compare --plot cmpplot: exit $rc, no PNG:"; sed 's/^/  | /' "$tmp/err"; }

# --- (c2) plot_sweep_table: a size that is not a power of two, an SVG asked for -----------------------------------
# 1536 KiB is 1.5 MiB (the --best table said "1 MiB", as if a third of the message had gone); -o t.svg wrote t.svg.png.
echo '{"points": [{"topo": "dgx1", "bytes": "1536K"}, {"topo": "dgx1", "bytes": "3M"}]}' >"$tmp/odd.json"
"$ccsim" sweep "$tmp/odd.json" -o "$tmp/odd.csv" >/dev/null 2>&1 || bad "ccsim sweep odd.json exited $?"
out=$("$scripts/plot_sweep_table.py" "$tmp/odd.csv" -o "$tmp/odd.svg" --best 2>&1)
echo "$out" | grep -qE '^\| dgx1 \| 1\.5 MiB \| ' || bad "plot_sweep_table --best: 1536 KiB is not 1.5 MiB: $out"
echo "$out" | grep -qE '^\| dgx1 \| 3 MiB \| ' || bad "plot_sweep_table --best: 3 MiB row: $out"
grep -q '<svg' "$tmp/odd.svg" 2>/dev/null && [ ! -e "$tmp/odd.svg.png" ] || bad "plot_sweep_table -o odd.svg: no odd.svg ($(ls "$tmp" | grep odd))"

# --- (d) SIGINT / SIGTERM mid-run: one line, exit 128+N, no picture and no temporary left -------------------------
# A 64 MiB timeline takes plot_timeline a few seconds (matplotlib's import, then thousands of bars); the signal comes
# at 0.5 s. Should the run end first (a fast machine), its pictures must be whole.
"$ccsim" --topo dgx1 -b 64M -e 64M --timeline "$tmp/big.json" >/dev/null || bad "ccsim --timeline 64M exited $?"
for sig in INT TERM; do
  rm -rf "$tmp/sig" && mkdir "$tmp/sig"
  # A background job of a script starts with SIGINT ignored: exec it with SIGINT's default, as a terminal's Ctrl-C.
  /usr/bin/python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
    "$scripts/plot_timeline.py" "$tmp/big.json" -o "$tmp/sig/t" >/dev/null 2>"$tmp/err" &
  pid=$!
  sleep 0.5
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  if [ "$rc" = 0 ]; then
    png "$tmp/sig/t.png" && [ -s "$tmp/sig/t.svg" ] || bad "plot_timeline (SIG$sig too late): pictures not whole"
  else
    want=$((128 + $(kill -l "$sig")))
    one_line "plot_timeline under SIG$sig" "$want" "$tmp/err" "$rc"
    left=$(ls -A "$tmp/sig")
    [ -z "$left" ] || bad "plot_timeline under SIG$sig left: $left"
  fi
done

# --- (d2) topo show --dot: each link's bandwidth per direction, as `topo show` lists it ----------------------------
# By hand: a crossbar of 25 GB/s is one ideal lane of 25 GB/s to the switch; DGX-1V's gpu0-gpu3 is two NVLink2 lanes
# of 25 GB/s each way, 50 GB/s. The label was "ideal x1" alone: the drawing never said how fast a link is.
"$ccsim" topo show 'crossbar:ranks=4,bw=25GB/s,alpha=2us' --dot >"$tmp/x.dot" 2>&1 || bad "topo show crossbar --dot exited $?"
[ "$(grep -c 'label="ideal x1, 25 GB/s"' "$tmp/x.dot")" = 4 ] || bad "crossbar --dot: 4 links of 25 GB/s not labelled: $(grep -m1 -- ' -- ' "$tmp/x.dot")"
"$ccsim" topo show dgx1 --dot >"$tmp/d.dot" 2>&1 || bad "topo show dgx1 --dot exited $?"
grep -qF '"gpu0" -- "gpu3" [color="#76b900", penwidth=2, label="nvlink2 x2, 50 GB/s"' "$tmp/d.dot" ||
  bad "dgx1 --dot: gpu0-gpu3 not labelled nvlink2 x2, 50 GB/s: $(grep -F '"gpu0" -- "gpu3"' "$tmp/d.dot")"
if command -v dot >/dev/null; then
  dot -Tsvg "$tmp/d.dot" -o "$tmp/d.svg" 2>"$tmp/err" && grep -qF '50 GB/s' "$tmp/d.svg" || bad "dot -Tsvg of dgx1: $(cat "$tmp/err")"
fi

# --- (e) a truncated flag: the nearest flag that starts with it ---------------------------------------------------
err=$("$ccsim" --topo dgx1 --timelin "$tmp/t.json" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && echo "$err" | grep -qF -- "--timelin: no such flag; did you mean --timeline?" ||
  bad "--timelin: exit $rc: $err"
err=$("$ccsim" --topo dgx1 --ring-order 0,1,2,3,4,5,6,7 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && echo "$err" | grep -qF -- "--ring-order: no such flag; did you mean --ring?" ||
  bad "--ring-order: exit $rc: $err"

exit $((fails > 0))
