#!/bin/bash
# One naming scheme across the CSV outputs (README "Output for scripts"): compare's columns are the run's names with
# measured_/predicted_ in front, units in every name (_us, _GBps, _pct); a header written by hand from that table.
set -u
ccsim="$1"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
trace=tests/data/wild_traces/a100-sxm4-40gb-8gpu-allreduce-1B-8G-c0-superbench.txt
run=$("$ccsim" --topo dgx1 -b 1M -e 1M --format csv | head -1)
[ "$run" = "size,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,op,ranks" ] || fail "the run's header: $run"
cmp=$("$ccsim" compare --trace "$trace" --topo hgx-a100 --model nccl --format csv 2>/dev/null | head -1)
[ "$cmp" = "size,count,measured_time_us,predicted_time_us,measured_algbw_GBps,predicted_algbw_GBps,measured_busbw_GBps,predicted_busbw_GBps,busbw_err_pct,algo,proto,channels" ] ||
  fail "compare's header: $cmp"
# Every run column with a unit stands in compare's header under both prefixes.
for c in time_us algbw_GBps busbw_GBps; do
  grep -q ",measured_$c,predicted_$c," <<<"$cmp" || fail "compare lacks measured_/predicted_$c"
done
[ $fails -eq 0 ] && echo "csv_names: all passed"
exit $((fails > 0))
