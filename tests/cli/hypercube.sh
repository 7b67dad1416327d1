#!/bin/bash
# hypercube (nccl-tests' hypercube_perf) from the command line: `ccsim hypercube_perf` prints nccl-tests'
# rows (an empty redop, so 12 words; root -1; size = count x n x 4; busbw = algbw = count x 4 x (n-1) / time),
# the alpha-beta value on a 4-GPU crossbar is the hand value 2 alpha + 3 m / bw, a rank count that is not a
# power of two is skipped as hypercube.cu does (perf mode) or refused in one line (main command), and
# `ccsim compare` reads a hypercube_perf file (tests/data/hypercube-4gpu-crossbar-SYNTHETIC.txt, times
# computed outside ccsim) with near-zero error.
set -u
ccsim="$1"; src="$2"
fail=0
col() { echo "$1" | awk -v s="$2" -v c="$3" '$1 == s { print $c; exit }'; }
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol * b) }'; }

# nccl-tests mode, the brief's command line: 8 B .. 128 MiB by 2 = 25 rows of 12 words.
out=$("$ccsim" hypercube_perf -b 8 -e 128M -f 2 -g 8 --topo hgx-h100 2>&1) || { echo "FAIL hypercube_perf exited $?: $out"; fail=1; }
rows=$(echo "$out" | awk 'NF == 12 && $1 ~ /^[0-9]+$/' | wc -l)
[ "$rows" = 25 ] || { echo "FAIL hypercube_perf: $rows rows of 12 words, want 25: $out"; fail=1; }
echo "$out" | head -1 | grep -qx '# Collective test starting: hypercube_perf' || { echo "FAIL first line: $(echo "$out" | head -1)"; fail=1; }
# size = count x 8 x 4; the redop field is 6 blanks (so $4 is the root, -1); busbw = algbw.
bad=$(echo "$out" | awk 'NF == 12 && $1 ~ /^[0-9]+$/ && !($1 == 32 * $2 && $3 == "float" && $4 == -1 && $6 == $7 && $10 == $11 && $8 == 0 && $12 == 0)')
[ -z "$bad" ] || { echo "FAIL hypercube_perf rows not in nccl-tests' hypercube shape: $bad"; fail=1; }
echo "$out" | grep -q '^     1048576         32768     float              -1 ' || { echo "FAIL 1 MiB row not printed with a blank redop: $out"; fail=1; }
echo "$out" | grep -q '# Collective test concluded: hypercube_perf' || { echo "FAIL no footer"; fail=1; }
nv=$("$ccsim" --topo hgx-h100 --model nccl --op hypercube -b 1M -e 1M 2>&1) || { echo "FAIL --model nccl: $nv"; fail=1; }
echo "$nv" | grep -q 'p2p/' || { echo "FAIL hypercube not on NCCL's P2P path: $nv"; fail=1; }

# Alpha-beta on an ideal crossbar, 4 GPUs, alpha 5 us, 25 GB/s: 1 MiB = blocks of 262144 B; 2 x 5 us +
# 3 x 262144 / 25e9 s = 41.46 us; algbw = busbw = 786432 B / 41.45728 us = 18.97 GB/s (hand).
ab=$("$ccsim" --topo crossbar:ranks=4,bw=25GB/s,alpha=5us --model fifo --op hypercube -b 1M -e 1M 2>&1) || { echo "FAIL fifo: $ab"; fail=1; }
within "$(col "$ab" 1048576 6)" 41.46 0.0005 || { echo "FAIL fifo 1 MiB time, hand 41.46 us: $ab"; fail=1; }
[ "$(col "$ab" 1048576 7)" = 18.97 ] && [ "$(col "$ab" 1048576 8)" = 18.97 ] || { echo "FAIL fifo 1 MiB algbw/busbw, hand 18.97: $ab"; fail=1; }

# Not a power of two: hypercube_perf prints its header, "nRanks 6 is not a power of 2, skipping", the footer,
# and exits 0 as nccl-tests does; the main command refuses in one line with exit 2.
six=$("$ccsim" hypercube_perf -b 1M -e 1M -g 6 --topo hgx-h100 2>&1); rc=$?
[ $rc = 0 ] && echo "$six" | grep -qx 'nRanks 6 is not a power of 2, skipping' &&
  [ "$(echo "$six" | awk '$1 ~ /^[0-9]+$/' | wc -l)" = 0 ] || { echo "FAIL hypercube_perf -g 6: rc $rc: $six"; fail=1; }
err=$("$ccsim" --topo crossbar:ranks=6 --op hypercube -b 1M -e 1M 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "not a power of 2" ||
  { echo "FAIL --op hypercube on 6 ranks: rc $rc: $err"; fail=1; }

# compare reads a hypercube_perf file: op and ranks from the file, every row within rounding of the hand values.
syn="$src/tests/data/hypercube-4gpu-crossbar-SYNTHETIC.txt"
cmp=$("$ccsim" compare --trace "$syn" --topo crossbar:ranks=4,bw=25GB/s,alpha=5us --model fifo 2>&1) ||
  { echo "FAIL compare exited $?: $cmp"; fail=1; }
echo "$cmp" | grep -q "(4 ranks, op from nccl-tests banner" || { echo "FAIL compare: op/ranks not from the file: $cmp"; fail=1; }
echo "$cmp" | grep -q "prediction: hypercube on topology crossbar-4" || { echo "FAIL compare does not predict hypercube: $cmp"; fail=1; }
[ "$(echo "$cmp" | awk '$1 ~ /^[0-9]+$/ && NF == 10' | wc -l)" = 5 ] || { echo "FAIL compare: not 5 rows: $cmp"; fail=1; }
off=$(echo "$cmp" | awk '$1 ~ /^[0-9]+$/ && NF == 10 { e = $9 + 0; if (e < 0) e = -e; if (e > 0.2) print }')
[ -z "$off" ] || { echo "FAIL compare: rows off by more than 0.2 %: $off"; fail=1; }

# ccsim's own hypercube_perf output read back by compare: same model and machine, error within print rounding.
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
"$ccsim" hypercube_perf -g 8 -b 8 -e 1G -f 4 --topo hgx-h100 >"$tmp" || { echo "FAIL hypercube_perf -g 8 exited $?"; fail=1; }
rt=$("$ccsim" compare --trace "$tmp" --topo hgx-h100 --model nccl 2>&1) || { echo "FAIL compare of ccsim's own output: $rt"; fail=1; }
echo "$rt" | grep -q "(8 ranks, op from nccl-tests banner" || { echo "FAIL round trip: op/ranks not from the file: $rt"; fail=1; }
off=$(echo "$rt" | awk '$1 ~ /^[0-9]+$/ && NF == 10 { e = $9 + 0; if (e < 0) e = -e; if (e > 0.1) print }')
[ -z "$off" ] || { echo "FAIL round trip rows off by more than 0.1 %: $off"; fail=1; }

[ $fail = 0 ] && echo "hypercube: all checks passed"
exit $fail
