#!/bin/bash
# scripts/nvls_loops.py: the per-loop read of a one-domain NVLS allreduce trace. Measured columns by hand from
# the file (MGHPCC AICR, 8 x B200, NCCL 2.29.3: 24 NVLS channels on one node, 8 heads; out-of-place times):
# calcCollChunking keeps 64 KiB from 8 x 24 x 8 x 64 KiB = 96 MiB to 64 x 24 x 8 x 128 KiB = 1.5 GiB, so 256 MiB and
# 1 GiB both run 64 KiB chunks, W = 24 x 8 x 64 KiB = 12 MiB, 768 MiB / 12 MiB = 64 loops apart:
# (2580.17 - 719.70) / 64 = 29.07 us a loop; 4 and 16 GiB run 128 KiB, W = 24 MiB, 512 loops apart:
# (35746.8 - 9074.88) / 512 = 52.09 us; a = 2 x 29.0698 - 52.0936 = 6.05 us. The model's columns are not checked.
set -u
ccsim="$1"; src="$2"
fail=0
out=$(python3 "$src/scripts/nvls_loops.py" --ccsim "$ccsim" --tables "$src/models/nccl.json" \
  --trace "$src/tests/data/wild_traces/b200-8gpu-allreduce-1M-16G-f4-singleproc-nccl2293-aicr.txt" \
  --topo 'machine:gpu=b200,gpus=8' 2>&1)
for want in "8 ranks, 8 NVLS heads" "256 MiB -> 1 GiB | 64 KiB | 12.0 MiB | 64.00 | 29.07 |" \
            "4 GiB -> 16 GiB | 128 KiB | 24.0 MiB | 512.00 | 52.09 |" "measured 6.05 us" "(channels 24)"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL: want '$want' in:"; echo "$out"; fail=1; }
done
# Bad input: one line naming the flag, exit 2.
err=$(python3 "$src/scripts/nvls_loops.py" --ccsim "$ccsim" --trace /nonexistent --topo x 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q -- "--trace /nonexistent" <<<"$err" || { echo "FAIL bad --trace: rc=$rc: $err"; fail=1; }
exit $fail
