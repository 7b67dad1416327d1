#!/bin/bash
# Fifteenth user trial (an ML-systems engineer simulating whole training steps of a 70B model with tensor parallelism
# and ZeRO-3, a Python user sweeping from their own scripts, a user of `ccsim sweep` plans). Each friction, fixed and
# kept fixed:
#  - a hybrid step named only the count and bytes of each kind of collective: not the operations, their buffer sizes
#    (nccl-tests' size) nor, under --model nccl, the algorithm, protocol and channels NCCL's model chose for each;
#    the JSON had no per-collective rows either;
#  - `ccsim sweep plan.json -o FILE` whose every point failed (a machine spec without nics=) printed nothing and left
#    a table of error rows: no word on the terminal that anything had failed.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL|HSA|SLURM|OMPI|PMI)_[A-Z0-9_]*'); do unset "$v"; done

# --- (a) a training step names its collectives ----------------------------------------------------------------------
# Llama-3-70B, tp 8 with sequence parallelism, pp 4, 8 micro-batches: per layer 8 RS/AG of b*s*h*2 bytes
# = 1*8192*8192*2 = 128 MiB on 8 GPUs (training.md's table); full recomputation adds 2 per layer... with sequence
# parallelism that is one more forward's 4: 12 per layer per micro-batch. 80 layers x 8 micro-batches x 12 = 7680
# collectives over the whole machine's 4 stages (20 layers each), half reduce-scatters and half allgathers.
# Pipeline sends: b*s*h*2/t = 16 MiB per tensor rank; (pp-1) boundaries x 8 micro-batches x 2 directions = 48.
python3 - "$src/scenarios/llama3_70b_4x8_h100.json" "$tmp/l70.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["parallel"]["global_batch"] = 8
json.dump(s, open(sys.argv[2], "w"))
PY
out=$("$ccsim" scenario "$tmp/l70.json" 2>&1)
echo "$out" | grep -qE '^ +3840 x reducescatter +128 MiB on +8 GPUs' || bad "scenario: no reducescatter 128 MiB x 3840 line: $out"
echo "$out" | grep -qE '^ +3840 x allgather +128 MiB on +8 GPUs' || bad "scenario: no allgather 128 MiB x 3840 line"
echo "$out" | grep -qE '^ +48 x send +16 MiB on +2 GPUs' || bad "scenario: no pipeline send 16 MiB x 48 line"
# Under NCCL's model each line says what NCCL's tuning picked: an algorithm/protocol pair and its channels.
nc=$("$ccsim" scenario "$tmp/l70.json" --model nccl 2>&1)
echo "$nc" | grep -E '^ +3840 x allgather +128 MiB on +8 GPUs' | grep -qE '\([a-z_]+/(Simple|LL|LL128), [0-9]+ channels' ||
  bad "scenario --model nccl: the allgather line names no algorithm/protocol/channels: $(echo "$nc" | grep allgather)"
# The JSON has the same rows; their counts add up to the per-kind totals it already gave.
"$ccsim" scenario "$tmp/l70.json" --model nccl --format json > "$tmp/l70.out" 2>&1
python3 - "$tmp/l70.out" <<'PY' || bad "scenario --format json: collective_shapes"
import json, sys
d = json.load(open(sys.argv[1]))
sh = d["collective_shapes"]
for kind, n in d["collectives"].items():
    assert sum(e["count"] for e in sh if e["kind"] == kind) == n, (kind, n)
ag = [e for e in sh if e["kind"] == "tp" and e["op"] == "allgather"]
assert len(ag) == 1 and ag[0]["size"] == 128 << 20 and ag[0]["ranks"] == 8 and ag[0]["count"] == 3840, ag
assert ag[0]["algo"] and ag[0]["proto"] in ("Simple", "LL", "LL128"), ag
PY

# --- (c) a sweep whose points all failed says so --------------------------------------------------------------------
cat > "$tmp/plan.json" <<'J'
{"defaults": {"b": "1M", "e": "1M"}, "grid": {"topo": ["machine:gpu=h100,nodes=2", "machine:gpu=h100,nodes=4"]}}
J
err=$("$ccsim" sweep "$tmp/plan.json" -o "$tmp/t.csv" -j 1 2>&1 >/dev/null)
echo "$err" | grep -q "2 of 2 points failed" || bad "sweep: all points failed and stderr said: '$err'"
echo "$err" | grep -q "nics=" || bad "sweep: the failure line does not give the first point's error: '$err'"
[ -s "$tmp/t.csv" ] || bad "sweep: no table written"
# A sweep that ran says nothing.
cat > "$tmp/ok.json" <<'J'
{"defaults": {"b": "1M", "e": "1M"}, "grid": {"topo": ["dgx1", "hgx-a100"]}}
J
err=$("$ccsim" sweep "$tmp/ok.json" -o "$tmp/ok.csv" -j 1 2>&1 >/dev/null)
[ -z "$err" ] || bad "sweep: a sweep without failures printed '$err'"

exit $((fails > 0))
