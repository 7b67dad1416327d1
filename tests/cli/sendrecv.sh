#!/bin/bash
# sendrecv (nccl-tests' sendrecv_perf) from the command line: `ccsim sendrecv_perf` prints nccl-tests' rows
# (redop sum, root -1, busbw = algbw, in-place #wrong N/A as sendrecv.cu sets it), the alpha-beta value on
# a 2-GPU crossbar is the hand value alpha + size/bw, the NCCL model's 1 GiB on two H100 is the port speed,
# 1 rank (a send to itself) runs as nccl-tests allows, and `ccsim compare` reads a sendrecv_perf file
# (tests/data/sendrecv-2gpu-crossbar-SYNTHETIC.txt, times computed by hand) with near-zero error.
set -u
ccsim="$1"; src="$2"
fail=0
# column n of the row of size $2 in output $1
col() { echo "$1" | awk -v s="$2" -v c="$3" '$1 == s { print $c; exit }'; }
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol * b) }'; }

# nccl-tests mode, the command line of the issue: 8 B .. 1 GiB by 2 = 28 rows of 13 fields.
out=$("$ccsim" sendrecv_perf -b 8 -e 1G -f 2 -g 2 --topo hgx-h100 2>&1) || { echo "FAIL sendrecv_perf exited $?: $out"; fail=1; }
rows=$(echo "$out" | awk 'NF == 13 && $1 ~ /^[0-9]+$/' | wc -l)
[ "$rows" = 28 ] || { echo "FAIL sendrecv_perf: $rows rows, want 28"; fail=1; }
echo "$out" | head -1 | grep -qx '# Collective test starting: sendrecv_perf' || { echo "FAIL first line: $(echo "$out" | head -1)"; fail=1; }
# size = count x 4, redop sum, root -1, busbw = algbw in both halves, #wrong 0 out of place and N/A in place.
bad=$(echo "$out" | awk 'NF == 13 && $1 ~ /^[0-9]+$/ && !($1 == 4 * $2 && $3 == "float" && $4 == "sum" && $5 == -1 && $7 == $8 && $11 == $12 && $9 == 0 && $13 == "N/A")')
[ -z "$bad" ] || { echo "FAIL sendrecv_perf rows not in nccl-tests' sendrecv shape: $bad"; fail=1; }
echo "$out" | grep -q '# Collective test concluded: sendrecv_perf' || { echo "FAIL no footer"; fail=1; }

# Alpha-beta on an ideal crossbar, 2 GPUs, alpha 5 us, 25 GB/s: 1 MiB takes 5 + 1048576 / 25e9 s = 46.94 us,
# algbw = busbw = 1048576 / 46.94304 us = 22.34 GB/s (hand).
ab=$("$ccsim" --topo crossbar:ranks=2,bw=25GB/s,alpha=5us --model fifo --op sendrecv -b 1M -e 1M 2>&1) || { echo "FAIL fifo: $ab"; fail=1; }
within "$(col "$ab" 1048576 6)" 46.94 0.0005 || { echo "FAIL fifo 1 MiB time, hand 46.94 us: $ab"; fail=1; }
[ "$(col "$ab" 1048576 7)" = 22.34 ] && [ "$(col "$ab" 1048576 8)" = 22.34 ] || { echo "FAIL fifo 1 MiB algbw/busbw, hand 22.34: $ab"; fail=1; }
# On 4 ranks every GPU still sends once on its own link: the same time.
ab4=$("$ccsim" --topo crossbar:ranks=4,bw=25GB/s,alpha=5us --model fifo --op sendrecv -b 1M -e 1M 2>&1) || { echo "FAIL fifo 4: $ab4"; fail=1; }
within "$(col "$ab4" 1048576 6)" 46.94 0.0005 || { echo "FAIL fifo 4 ranks 1 MiB time, hand 46.94 us: $ab4"; fail=1; }

# NCCL model, bare: 2 H100 on NVSwitch, 1 GiB on the send's 32 P2P channels at the write block's 20.05 GB/s
# each (641.6 GB/s, above the GPU's 18 x 20.6 = 370.8 GB/s port, which binds; sim/model/nccl/p2p_plan.hpp) plus
# NCCL's ring base latency and one hop (8.4 + 3.4 us): 2907.5 us, busbw 369.3 GB/s (hand).
nv=$("$ccsim" --topo hgx-h100 --gpus 0,1 --model nccl --params none --op sendrecv -b 1G -e 1G 2>&1) || { echo "FAIL nccl: $nv"; fail=1; }
within "$(col "$nv" 1073741824 6)" 2907.5 0.001 || { echo "FAIL nccl 1 GiB time, hand 2907.5 us: $nv"; fail=1; }
within "$(col "$nv" 1073741824 8)" 369.3 0.001 || { echo "FAIL nccl 1 GiB busbw, hand 369.3 GB/s: $nv"; fail=1; }
echo "$nv" | grep -q "p2p/Simple" || { echo "FAIL nccl sendrecv is not on the P2P path: $nv"; fail=1; }

# 1 rank: nccl-tests runs it (the rank sends to itself, a copy in its own memory). The alpha-beta models
# charge the copy nothing (time 0, as alltoall on 1 rank); the NCCL model runs the P2P kernel's copy to oneself
# (src/device/sendrecv.h), read and written at the H100's data-sheet 3,350 GB/s: from 1 MiB to
# 1 GiB the time grows by 2 x (2^30 - 2^20) B / 3,350 GB/s = 640.41 us (by hand; the launch cancels). The choice
# column says so. A GPU kind without a memory figure keeps the refusal (models/nccl.json hbm_GBps_by_gpu).
one=$("$ccsim" sendrecv_perf -g 1 -b 1M -e 1M --topo hgx-h100 --model fifo 2>&1) || { echo "FAIL sendrecv_perf -g 1 fifo exited $?: $one"; fail=1; }
[ "$(echo "$one" | awk 'NF == 13 && $1 == 1048576 && $6 == "0.00"' | wc -l)" = 1 ] || { echo "FAIL sendrecv_perf -g 1 fifo: no free 1 MiB row: $one"; fail=1; }
one=$("$ccsim" --op sendrecv --gpus 0 -b 1M -e 1G -f 1024 --topo hgx-h100 --model nccl 2>&1) || { echo "FAIL sendrecv 1 rank nccl exited $?: $one"; fail=1; }
echo "$one" | awk '$1 == 1048576 { a = $6 } $1 == 1073741824 { b = $6 } END { d = b - a; exit !(d > 640.3 && d < 640.5) }' ||
  { echo "FAIL sendrecv 1 rank nccl: 1 MiB -> 1 GiB is not 640.41 us more: $one"; fail=1; }
echo "$one" | grep -q "copy/self-send" || { echo "FAIL sendrecv 1 rank nccl: the choice does not name the copy: $one"; fail=1; }

# compare reads a sendrecv_perf file: op and ranks from the file, every row within rounding of the hand values.
syn="$src/tests/data/sendrecv-2gpu-crossbar-SYNTHETIC.txt"
cmp=$("$ccsim" compare --trace "$syn" --topo crossbar:ranks=2,bw=25GB/s,alpha=5us --model fifo 2>&1) ||
  { echo "FAIL compare exited $?: $cmp"; fail=1; }
echo "$cmp" | grep -q "(2 ranks, op from nccl-tests banner" || { echo "FAIL compare: op/ranks not from the file: $cmp"; fail=1; }
echo "$cmp" | grep -q "prediction: sendrecv on topology crossbar-2" || { echo "FAIL compare does not predict sendrecv: $cmp"; fail=1; }
# The file's times are alpha + size/bw printed to nccl-tests' precision: every row within 0.1 % (err% column).
[ "$(echo "$cmp" | awk '$1 ~ /^[0-9]+$/ && NF == 10' | wc -l)" = 6 ] || { echo "FAIL compare: not 6 rows: $cmp"; fail=1; }
off=$(echo "$cmp" | awk '$1 ~ /^[0-9]+$/ && NF == 10 { e = $9 + 0; if (e < 0) e = -e; if (e > 0.1) print }')
[ -z "$off" ] || { echo "FAIL compare: rows off by more than 0.1 %: $off"; fail=1; }

# ccsim's own sendrecv_perf output read back by compare: same model and machine, error within print rounding.
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
"$ccsim" sendrecv_perf -g 8 -b 8 -e 1G -f 4 --topo hgx-h100 >"$tmp" || { echo "FAIL sendrecv_perf -g 8 exited $?"; fail=1; }
rt=$("$ccsim" compare --trace "$tmp" --topo hgx-h100 --model nccl 2>&1) || { echo "FAIL compare of ccsim's own output: $rt"; fail=1; }
echo "$rt" | grep -q "(8 ranks, op from nccl-tests banner" || { echo "FAIL round trip: op/ranks not from the file: $rt"; fail=1; }
off=$(echo "$rt" | awk '$1 ~ /^[0-9]+$/ && NF == 10 { e = $9 + 0; if (e < 0) e = -e; if (e > 0.1) print }')
[ -z "$off" ] || { echo "FAIL round trip rows off by more than 0.1 %: $off"; fail=1; }
# -o all: nccl-tests' sendrecv loops over the reductions (6 rows per size, each printing its name).
[ "$("$ccsim" sendrecv_perf -g 2 -b 1M -e 1M -o all --topo hgx-h100 | awk 'NF == 13 && $1 == 1048576 { print $4 }' | tr '\n' ' ')" = \
  "sum prod max min avg mulsum " ] || { echo "FAIL sendrecv_perf -o all: not one row per reduction"; fail=1; }

# Still refused, in one line with exit 2: the nccl-tests programs ccsim has no model for.
err=$("$ccsim" alltoallv_perf -g 2 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] || { echo "FAIL alltoallv_perf: rc $rc: $err"; fail=1; }

[ $fail = 0 ] && echo "sendrecv: all checks passed"
exit $fail
