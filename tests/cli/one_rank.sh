#!/bin/bash
# One rank under --model nccl: NCCL and RCCL run no collective kernel but ncclLaunchOneRank (NCCL
# src/device/onerank.cu; ROCm/rccl 0cbce2a the same), a device copy of the buffer only when sendbuff != recvbuff.
# nccl-tests' in-place half passes one buffer, so it has nothing to time but NCCL's host call (predicted 0);
# a floating-point average is PreMulSum, a kernel even in place. A send to oneself is the P2P kernel's copy
# (sendrecv.h, only when the buffers differ): in place NCCL 2.22.3 skips it on the host ("Skip send to self
# in-place", enqueue.cc), earlier releases and RCCL launch the kernel and copy nothing. Values by hand.
set -u
ccsim="$1"
fail=0
# field $3 of the row of size $2 in output $1
col() { echo "$1" | awk -v s="$2" -v c="$3" '$1 == s { print $c; exit }'; }

# H100 (data sheet 3,350 GB/s): every collective's in-place half is 0.00 us at every size, the out-of-place half
# is the copy (1 MiB -> 1 GiB: 2 x (2^30 - 2^20) B / 3,350 GB/s = 640.41 us more).
for prog in all_reduce_perf all_gather_perf reduce_scatter_perf broadcast_perf reduce_perf; do
  out=$("$ccsim" "$prog" -g 1 -b 1M -e 1G -f 1024 --topo hgx-h100 2>&1) || { echo "FAIL $prog -g 1 exited $?: $out"; fail=1; continue; }
  [ "$(col "$out" 1048576 10)" = 0.00 ] && [ "$(col "$out" 1073741824 10)" = 0.00 ] ||
    { echo "FAIL $prog -g 1: in-place is not 0.00 us (nothing enqueued): $out"; fail=1; }
  echo "$out" | awk '$1 == 1048576 { a = $6 } $1 == 1073741824 { b = $6 } END { d = b - a; exit !(d > 640.3 && d < 640.5) }' ||
    { echo "FAIL $prog -g 1: out-of-place 1 MiB -> 1 GiB is not 640.41 us more: $out"; fail=1; }
done
out=$("$ccsim" all_reduce_perf -g 1 -b 1M -e 1M --topo hgx-h100 2>&1)
echo "$out" | grep -q "in-place predicted apart" || { echo "FAIL -g 1: the header does not say in-place is predicted apart: $out"; fail=1; }
out=$("$ccsim" all_reduce_perf -g 2 -b 1M -e 1M --topo hgx-h100 2>&1)
[ "$(col "$out" 1048576 6)" = "$(col "$out" 1048576 10)" ] || { echo "FAIL -g 2: the halves differ: $out"; fail=1; }

# Average: half is PreMulSum (a kernel that reads and writes the buffer even in place), int32 is SumPostDiv (none).
out=$("$ccsim" all_reduce_perf -g 1 -b 1G -e 1G -o avg -d half --topo hgx-h100 2>&1)
[ "$(col "$out" 1073741824 6)" = "$(col "$out" 1073741824 10)" ] && [ "$(col "$out" 1073741824 10)" != 0.00 ] ||
  { echo "FAIL avg half: the in-place half is not the out-of-place copy: $out"; fail=1; }
out=$("$ccsim" all_reduce_perf -g 1 -b 1G -e 1G -o avg -d int32 --topo hgx-h100 2>&1)
[ "$(col "$out" 1073741824 10)" = 0.00 ] || { echo "FAIL avg int32: in-place is not 0.00: $out"; fail=1; }

# A send to oneself in place: skipped from NCCL 2.22.3; by 2.21.5 the kernel's launch alone, the same at every
# size and short of the out-of-place copy by 2 x 2^30 B / 3,350 GB/s = 641.03 us at 1 GiB (hand).
new=$("$ccsim" sendrecv_perf -g 1 -b 1M -e 1G -f 1024 --topo hgx-h100 --nccl-version 2.22.3 2>&1)
old=$("$ccsim" sendrecv_perf -g 1 -b 1M -e 1G -f 1024 --topo hgx-h100 --nccl-version 2.21.5 2>&1)
[ "$(col "$new" 1073741824 10)" = 0.00 ] || { echo "FAIL sendrecv 2.22.3: in-place self-send not skipped: $new"; fail=1; }
[ "$(col "$old" 1048576 10)" = "$(col "$old" 1073741824 10)" ] && [ "$(col "$old" 1073741824 10)" != 0.00 ] ||
  { echo "FAIL sendrecv 2.21.5: in-place self-send is not the launch alone: $old"; fail=1; }
echo "$old" | awk '$1 == 1073741824 { d = $6 - $10; exit !(d > 640.9 && d < 641.2) }' ||
  { echo "FAIL sendrecv 2.21.5: out-of-place is not the launch + 641.03 us of copy at 1 GiB: $old"; fail=1; }
echo "$("$ccsim" --op sendrecv --gpus 0 -b 1M -e 1M --topo hgx-h100 --model nccl 2>&1)" | grep -q "copy/self-send" ||
  { echo "FAIL sendrecv 1 rank: the choice does not name the P2P kernel's self-send copy"; fail=1; }

# compare --in-place predicts the in-place half: ccsim's own 2.21.5 output read back at 2.21.5 within print
# rounding (the launch alone prints as 2.42 us: two decimals, up to 0.2 %), at 2.22.3 predicted 0 (err -100 %).
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
"$ccsim" sendrecv_perf -g 1 -b 1M -e 64M -f 8 --topo hgx-h100 --nccl-version 2.21.5 >"$tmp"
same=$("$ccsim" compare --trace "$tmp" --in-place --topo hgx-h100 --model nccl --nccl-version 2.21.5 2>&1)
off=$(echo "$same" | awk '$1 ~ /^[0-9]+$/ && NF >= 10 { e = $9 + 0; if (e < 0) e = -e; if (e > 0.3) print }')
[ -z "$off" ] && echo "$same" | grep -q "in-place column" || { echo "FAIL compare --in-place at 2.21.5: $same"; fail=1; }
skip=$("$ccsim" compare --trace "$tmp" --in-place --topo hgx-h100 --model nccl --nccl-version 2.22.3 2>&1)
[ "$(echo "$skip" | awk '$1 ~ /^[0-9]+$/ && NF >= 10 && $9 == "-100.0"' | wc -l)" = 3 ] ||
  { echo "FAIL compare --in-place at 2.22.3: not 3 rows predicted 0: $skip"; fail=1; }

# RCCL (MI300X, data sheet 5.3 TB/s): the same copy, a hipMemcpyAsync; 1 MiB -> 1 GiB grows by
# 2 x (2^30 - 2^20) B / 5,300 GB/s = 404.79 us (by hand; the launch cancels). In place nothing for a
# collective; RCCL 0cbce2a has no in-place self-send skip, so sendrecv's in-place half is the kernel's launch
# (choice launch/in-place; compare --in-place on the 2.21.5 file above, read as MI300X), without the copy.
amd=$("$ccsim" --op allreduce --gpus 0 -b 1M -e 1G -f 1024 --topo machine:gpu=mi300x --model nccl 2>&1) ||
  { echo "FAIL MI300X 1 rank exited $?: $amd"; fail=1; }
echo "$amd" | awk '$1 == 1048576 { a = $6 } $1 == 1073741824 { b = $6 } END { d = b - a; exit !(d > 404.7 && d < 404.9) }' ||
  { echo "FAIL MI300X 1 rank: 1 MiB -> 1 GiB is not 404.79 us more: $amd"; fail=1; }
echo "$amd" | grep -q "copy/hipMemcpy" || { echo "FAIL MI300X 1 rank: the choice does not name the copy: $amd"; fail=1; }
out=$("$ccsim" all_reduce_perf -g 1 -b 1G -e 1G --topo machine:gpu=mi300x 2>&1)
[ "$(col "$out" 1073741824 10)" = 0.00 ] || { echo "FAIL MI300X all_reduce_perf -g 1: in-place is not 0.00: $out"; fail=1; }
# The launch of a one-rank call is the -g N kind's per-GPU term of the shipped set (hip/gN, read from the file
# here), not hip/g1's 0 (RCCL's base latency holds that floor): 8 B = that launch + 16 B / 5,300 GB/s (0.000003 us).
hip=$(python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["params"]["launch_by_kind"]["hip/gN"]["launch_per_gpu_us"])' \
  "$(dirname "$0")/../../models/params-nccl-default.json")
out=$("$ccsim" all_reduce_perf -g 1 -b 8 -e 8 --topo machine:gpu=mi300x 2>&1)
[ "$(col "$out" 8 6)" = "$hip" ] && [ "$hip" != 0.00 ] ||
  { echo "FAIL MI300X 8 B: out-of-place is not the hip/gN launch $hip us: $out"; fail=1; }
amd=$("$ccsim" compare --trace "$tmp" --in-place --topo machine:gpu=mi300x --model nccl 2>&1)
[ "$(echo "$amd" | grep -c "launch/in-place")" = 3 ] || { echo "FAIL MI300X compare --in-place: not the launch alone: $amd"; fail=1; }

[ $fail = 0 ] && echo "one_rank: all checks passed"
exit $fail
