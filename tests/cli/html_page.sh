#!/bin/sh
# explain --format html: the pages a student opens, loaded in headless Chromium with the network off
# (tests/cli/html_page_check.py: no console error, no fetch, SVGs present, a fixed-size screenshot that
# is not blank). Exit 77 (skipped) only when Chromium or Pillow is missing (scripts/setup.sh --tests).
# Usage: html_page.sh CCSIM CHECKER OUTDIR
set -eu
ccsim=$1 check=$2 out=$3
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
# One algorithm, p = 5: ring allreduce has 2(p-1) = 8 steps, each drawn (8 step SVGs + the time bars).
"$ccsim" explain --op allreduce --algo ring --ranks 5 --size 5M --format html -o "$out/ring5.html"
steps=$(grep -o '<div class="step">' "$out/ring5.html" | wc -l)
[ "$steps" -eq 8 ] || fail "ring p=5 page draws $steps steps, expected 2(p-1) = 8"
grep -q 'they agree to the picosecond' "$out/ring5.html" || fail "ring p=5 page does not compare simulation and formula"
grep -q 'T ≥' "$out/ring5.html" || fail "ring p=5 page has no lower bound"
# Nothing outside the file: no script, no URL but the inline favicon.
if grep -Eqi '<script|https?://|src=' "$out/ring5.html"; then fail "the page refers to something outside itself"; fi
# Above 16 ranks: the page says there is no drawing, and still explains.
"$ccsim" explain --op allreduce --algo ring --ranks 17 --size 17M --format html -o "$out/ring17.html"
grep -q 'No drawing: the schedule is drawn for at most 16 ranks' "$out/ring17.html" || fail "p=17 page does not say why it draws nothing"
# A sweep: the plot, a crossover and the selection band.
"$ccsim" explain --op broadcast --ranks 8 --format html -o "$out/sweep.html"
grep -q 'binomial → scatter_allgather' "$out/sweep.html" || fail "broadcast sweep page marks no crossover"
grep -q '>selection<' "$out/sweep.html" || fail "broadcast sweep page has no selection band"
rc=0
/usr/bin/python3 "$check" "$out/ring5.html" 9 "$out/ring5.png" || rc=$?
[ $rc -eq 0 ] || exit $rc
/usr/bin/python3 "$check" "$out/sweep.html" 1 "$out/sweep.png"
