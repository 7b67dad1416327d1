#!/bin/bash
# Alltoall on NCCL's P2P path from the command line: every row of an NVIDIA machine says p2p (never a
# ring), the bare model's 1 GiB row on 8 H100 is the hand value (8.4 + 3.4 us + 7 x 128 MiB on the GPU's
# 32 P2P channels at the write block's 20.05 GB/s each, 641.6 GB/s, above its 18 x 20.6 = 370.8 GB/s port,
# which binds: 2545.6 us, busbw 369.1 GB/s; sim/model/nccl/p2p_plan.hpp), the DGX-1 mesh stays under its relay bound (84 GB/s), two nodes
# under the NICs' (15/8 x 50 GB/s), and compare still reads the RCCL alltoall trace and still refuses the
# EDITED GB200 one.
set -u
ccsim="$1"; src="$2"
fail=0

out=$("$ccsim" --topo hgx-h100 --model nccl --op alltoall -b 8K -e 1G -f 8 2>&1) || { echo "FAIL h100 sweep: $out"; fail=1; }
rows=$(echo "$out" | grep -c "^ *[0-9]")
[ "$rows" = 6 ] || { echo "FAIL h100 sweep: $rows rows: $out"; fail=1; }
[ "$(echo "$out" | grep "^ *[0-9]" | grep -vc "p2p/")" = 0 ] || { echo "FAIL h100 sweep: a row that is not p2p: $out"; fail=1; }
echo "$out" | grep "^ *8192 " | grep -q "p2p/LL ch=1" || { echo "FAIL 8 KiB row is not LL on one channel: $out"; fail=1; }

# column n of the row of size $2 in output $1
col() { echo "$1" | awk -v s="$2" -v c="$3" '$1 == s { print $c }'; }
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol * b) }'; }

bare=$("$ccsim" --topo hgx-h100 --model nccl --params none --op alltoall -b 1G -e 1G 2>&1) || { echo "FAIL bare: $bare"; fail=1; }
t=$(col "$bare" 1073741824 6); bus=$(col "$bare" 1073741824 8)
within "$t" 2545.6 0.002 || { echo "FAIL bare 1 GiB time $t, hand 2545.6 us"; fail=1; }
within "$bus" 369.1 0.002 || { echo "FAIL bare 1 GiB busbw $bus, hand 369.1 GB/s"; fail=1; }

dgx=$("$ccsim" --topo dgx1-v100 --model nccl --params none --op alltoall -b 1G -e 1G 2>&1) || { echo "FAIL dgx1: $dgx"; fail=1; }
bus=$(col "$dgx" 1073741824 8)
awk -v b="$bus" 'BEGIN { exit !(b > 40 && b <= 84) }' || { echo "FAIL dgx1 busbw $bus outside (40, 84]: $dgx"; fail=1; }

two=$("$ccsim" --topo machine:gpu=h100,nodes=2,nics=8x400G,kind=ib --model nccl --params none --op alltoall -b 1G -e 1G 2>&1) ||
  { echo "FAIL two nodes: $two"; fail=1; }
bus=$(col "$two" 1073741824 8)
awk -v b="$bus" 'BEGIN { exit !(b > 60 && b <= 93.75) }' || { echo "FAIL two nodes busbw $bus outside (60, 93.75]: $two"; fail=1; }

for op in gather scatter; do
  g=$("$ccsim" --topo hgx-h100 --model nccl --params none --op $op --root 2 -b 1G -e 1G 2>&1) || { echo "FAIL $op: $g"; fail=1; }
  t=$(col "$g" 1073741824 6)
  within "$t" 2545.6 0.002 || { echo "FAIL $op 1 GiB time $t, hand 2545.6 us (the root's port carries 7 blocks)"; fail=1; }
done

amd="$src/models/traces/amd-mi35x-class-8gpu-alltoall-8B-128M-aion-rccl2277.txt"
cmp=$("$ccsim" compare --trace "$amd" --topo machine:gpu=mi355x --model nccl 2>&1) || { echo "FAIL compare RCCL alltoall: $cmp"; fail=1; }
echo "$cmp" | grep -q "direct/Simple" || { echo "FAIL compare RCCL alltoall: not RCCL's direct sends: $cmp"; fail=1; }

gb="$src/models/traces/gb200-nvl72-oci-4to192gpu-alltoall-4G-16G-scaling-ociquickstart-EDITED.txt"
"$ccsim" compare --trace "$gb" --topo machine:gpu=gb200,gpus=4 --model nccl >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL the EDITED GB200 alltoall trace is no longer refused"; fail=1; }

exit $fail
