#!/bin/bash
# Every GPU kind of models/gpus.json must work as a user would first try it: `machine:gpu=KIND` with 1, 2, 4
# and 8 GPUs under --model nccl (RCCL's tables for AMD kinds), the default model on 1 and 8 GPUs, and two
# nodes joined by one 400G NIC per GPU. Each run exits 0 and prints a 1 MiB allreduce row whose busbw is a
# positive number no larger than the GPU's fastest link could carry (busbw <= 2 x 1800 GB/s, NVLink5's 18 x 50
# both ways: a generous ceiling that only a unit slip would break). An unknown kind is one line naming the
# known kinds (a kind added by issue 14 among them) and exit 2.
set -u
ccsim="$1"
src="$2"
fail=0
kinds=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["gpus"]))' "$src/models/gpus.json")
[ -n "$kinds" ] || { echo "FAIL: no kinds read from $src/models/gpus.json"; exit 1; }
check() { # $1 label, rest: ccsim args
  local label="$1"; shift
  local out rc bus
  out=$("$ccsim" "$@" --op allreduce -b 1M -e 1M 2>&1); rc=$?
  bus=$(awk '/^ *[0-9]/ && NF >= 8 { print $8; exit }' <<<"$out")
  if [ "$rc" != 0 ] || ! awk -v b="$bus" 'BEGIN { exit !(b != "" && b + 0 >= 0 && b + 0 <= 3600) }'; then
    echo "FAIL $label: exit $rc, busbw '$bus': $(head -c 300 <<<"$out")"; fail=1
  fi
}
for k in $kinds; do
  for n in 1 2 4 8; do check "$k x$n nccl" --topo "machine:gpu=$k,gpus=$n" --model nccl; done
  for n in 1 8; do check "$k x$n default model" --topo "machine:gpu=$k,gpus=$n"; done
  check "$k 2 nodes x4" --topo "machine:gpu=$k,gpus=4,nodes=2,nics=4x400G,kind=ib" --model nccl
done

out=$("$ccsim" --topo machine:gpu=x900 --op allreduce -b 1M -e 1M 2>&1); rc=$?
[ "$rc" = 2 ] || { echo "FAIL unknown kind: exit $rc, expected 2"; fail=1; }
[ "$(wc -l <<<"$out")" = 1 ] || { echo "FAIL unknown kind: not one line: $out"; fail=1; }
grep -q "unknown gpu 'x900' (known: .*mi250x" <<<"$out" || { echo "FAIL unknown kind: known kinds not listed: $out"; fail=1; }
[ "$fail" = 0 ] && echo "gpu kinds: all $(wc -w <<<"$kinds") kinds run"
exit "$fail"
