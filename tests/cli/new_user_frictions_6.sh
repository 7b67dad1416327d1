#!/bin/bash
# Sixth user trial (a student on docs/course.md, an ML engineer sizing a 70B training step on 4 x 8 H100 against
# GB200 NVL72 racks, a user importing nvidia-smi topo -m / amd-smi output; tests/python/test_ccsim.py and
# tests/unit/scenario/hybrid_test.cpp hold the other halves). Each friction, fixed and kept fixed:
#  - a Llama-3-70B scenario (grouped-query attention, SwiGLU, untied embeddings) could not be written: 59 B parameters;
#  - compare read the release of "NCCL INFO NCCL version 2.18.3+cuda12.4" lines but did not apply it as --nccl-version,
#    and never said which release the prediction used; with two releases in one file the last line read applied,
#    silently;
#  - a 256-rank ring header was 8 lines of 256 numbers;
#  - machine:gpu=gb200,gpus=73 was accepted (an NVL72 rack holds 72 GPUs).
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

# The shipped Llama-3-70B scenario: Hugging Face's 70,553,706,496 parameters (by hand in docs/training.md).
out=$("$ccsim" scenario "$src/scenarios/llama3_70b_4x8_h100.json" --format json 2>&1) || bad "llama scenario: $out"
python3 -c 'import json,sys; p = json.loads(sys.argv[1])["params"]; sys.exit(0 if p == 70553706496 else 1)' "$out" ||
  bad "llama scenario: params not 70553706496: $(grep -o '"params": [0-9.e+]*' <<<"$out")"
out=$("$ccsim" scenario "$src/scenarios/llama3_70b_4x8_h100.json" 2>&1)
grep -qF "# transformer: 70.55 B parameters, 80 layers, hidden 8192, 64 heads (8 K,V heads)" <<<"$out" || bad "llama header: $(grep -F transformer: <<<"$out")"
sed 's/"num_key_value_heads": 8/"num_key_value_heads": 6/' "$src/scenarios/llama3_70b_4x8_h100.json" >"$tmp/kv6.json"
refused_one_line "transformer.num_key_value_heads: 6 does not divide heads = 64" scenario "$tmp/kv6.json"
sed 's/"mlp": "swiglu"/"mlp": "geglu"/' "$src/scenarios/llama3_70b_4x8_h100.json" >"$tmp/geglu.json"
refused_one_line "transformer.mlp: unknown 'geglu' (gelu, swiglu)" scenario "$tmp/geglu.json"

# A log whose only release is NCCL's own INFO line.
{
  echo "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
  echo "# Using devices"
  for r in 0 1 2 3 4 5 6 7; do echo "#  Rank  $r Group  0 Pid  100$r on      node1 device  $r [0x18] NVIDIA H100 80GB HBM3"; done
  for r in 0 1 2 3 4 5 6 7; do echo "node1:100$r:100$r [$r] NCCL INFO NCCL version 2.18.3+cuda12.2"; done
  echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
  echo "     1048576        262144     float     sum      -1    40.00   26.21   45.88      0    40.00   26.21   45.88      0"
  echo "     4194304       1048576     float     sum      -1    70.00   59.92  104.86      0    70.00   59.92  104.86      0"
} >"$tmp/info.txt"
h100="machine:gpu=h100,gpus=8"
out=$("$ccsim" compare --trace "$tmp/info.txt" --topo "$h100" --model nccl 2>&1)
grep -qF "# trace: NCCL version 2.18.3+cuda12.2 from the trace's NCCL INFO line (applied as --nccl-version" <<<"$out" ||
  bad "INFO release not applied: $(grep -F version <<<"$out")"
# Applied means predicted as --nccl-version 2.18.3 predicts it: the same rows.
want=$("$ccsim" compare --trace "$tmp/info.txt" --topo "$h100" --model nccl --nccl-version 2.18.3 --format csv 2>&1)
got=$("$ccsim" compare --trace "$tmp/info.txt" --topo "$h100" --model nccl --format csv 2>&1)
[ "$want" = "$got" ] || bad "INFO release: rows differ from --nccl-version 2.18.3: $got vs $want"
out=$("$ccsim" compare --trace "$tmp/info.txt" --topo "$h100" --model nccl --nccl-version 2.27.3 2>&1)
[ "$(grep -c 'NCCL version' <<<"$out")" -eq 1 ] && grep -qF "# trace: NCCL version 2.27.3 from --nccl-version, which wins over 2.18.3+cuda12.2 in the trace's NCCL INFO line" <<<"$out" ||
  bad "given --nccl-version against the log's: $(grep -F version <<<"$out")"
# Two releases in one file (NCCL's init refuses mixed releases in one communicator: two runs pasted together):
# neither is applied, and one line says so; the same release built for two CUDA versions is one release.
sed '0,/NCCL version 2.18.3+cuda12.2/s//NCCL version 2.21.5+cuda12.4/' "$tmp/info.txt" >"$tmp/two.txt"
out=$("$ccsim" compare --trace "$tmp/two.txt" --topo "$h100" --model nccl 2>&1)
grep -qF "# trace: NCCL INFO lines name two releases, 2.21.5+cuda12.4 and 2.18.3+cuda12.2: neither applied (give --nccl-version)" <<<"$out" &&
  [ "$(grep -c 'NCCL version' <<<"$out")" -eq 0 ] || bad "two INFO releases: $(grep -F releas <<<"$out")"
want=$("$ccsim" compare --trace "$tmp/two.txt" --topo "$h100" --model nccl --format csv 2>&1)
grep -v "NCCL version" "$tmp/two.txt" >"$tmp/two-none.txt"
got=$("$ccsim" compare --trace "$tmp/two-none.txt" --topo "$h100" --model nccl --format csv 2>&1)
[ "$want" = "$got" ] || bad "two INFO releases: rows differ from a log naming none"
sed '0,/NCCL version 2.18.3+cuda12.2/s//NCCL version 2.18.3+cuda12.4/' "$tmp/info.txt" >"$tmp/twocuda.txt"
"$ccsim" compare --trace "$tmp/twocuda.txt" --topo "$h100" --model nccl 2>&1 | grep -qE "NCCL version 2.18.3\+cuda12.[24] from the trace's NCCL INFO line" ||
  bad "one release built for two CUDA versions not applied"
grep -v "NCCL version" "$tmp/info.txt" >"$tmp/none.txt"
out=$("$ccsim" compare --trace "$tmp/none.txt" --topo "$h100" --model nccl --nccl-version 2.27.3 2>&1)
grep -qF "# trace: NCCL version 2.27.3 from --nccl-version (the trace names none)" <<<"$out" || bad "given release not in the header: $(head -6 <<<"$out")"

# 256 ranks: each ring one short line, every line under 200 characters; the full list stays in JSON.
out=$("$ccsim" --topo machine:gpu=h100,gpus=8,nodes=32,nics=8x400G --model nccl -b 1M -e 1M 2>&1)
grep -qF "# ring 0: GPUs 1-7 0, then the same +8 per block of 8 for 31 more block(s) (last: 249-255 248; 256 ranks)" <<<"$out" ||
  bad "256-rank ring 0: $(grep -F 'ring 0' <<<"$out" | cut -c1-200)"
grep -qF "# ring 7: GPUs 0..255 in order (256 ranks)" <<<"$out" || bad "256-rank ring 7: $(grep -F 'ring 7' <<<"$out" | cut -c1-200)"
[ "$(awk 'length > 200' <<<"$out" | wc -l)" -eq 0 ] || bad "256 ranks: header lines over 200 characters"
"$ccsim" --topo machine:gpu=h100,gpus=8,nodes=32,nics=8x400G --model nccl -b 1M -e 1M --format json |
  python3 -c 'import json,sys; p = json.load(sys.stdin)["placements"]; sys.exit(0 if len(p[0]) == 256 and sorted(p[0]) == list(range(256)) else 1)' ||
  bad "256 ranks: JSON placements not the full ring"
# `ccsim rings` on the same 256 GPUs: its ring column and hop line read alike (the hops by kind; each in JSON).
# At 1 MiB: the text checked is the same at any size, and the default 128 MiB took 2.8x the CPU (4.6 against 1.7 s
# in Release), most of this script's time when sanitized (scripts/BENCHMARKS.md "CI time, sixteenth session").
out=$("$ccsim" rings --topo machine:gpu=h100,gpus=8,nodes=32,nics=8x400G --top 2 -n 1M 2>&1)
grep -qF "GPUs 0..255 in order (256 ranks), allreduce" <<<"$out" || bad "rings header: $(head -1 <<<"$out" | cut -c1-200)"
grep -qF "hops: 32 x NET, 224 x NVSwitch (each hop in --format json)" <<<"$out" || bad "rings hops: $(grep -F hops: <<<"$out" | head -1 | cut -c1-200)"
[ "$(awk 'length > 250' <<<"$out" | wc -l)" -eq 0 ] || bad "rings, 256 ranks: lines over 250 characters"
# 16 ranks stay listed GPU by GPU.
"$ccsim" --topo machine:gpu=h100,gpus=8,nodes=2,nics=8x400G --model nccl -b 1M -e 1M | grep -qF "# ring 0: GPUs 1 2 3 4 5 6 7 0 9 10 11 12 13 14 15 8" || bad "16-rank ring not listed"

# Rack limits (models/gpus.json nvswitch_domain): NVL72 holds 72 GPUs, a DGX GH200 256.
refused_one_line "machine: one gb200 NVLink domain holds at most 72 GPUs (models/gpus.json nvswitch_domain), got gpus=73" \
  --topo machine:gpu=gb200,gpus=73 -b 1M -e 1M
refused_one_line "one gb300 NVLink domain holds at most 72 GPUs" --topo machine:gpu=gb300,gpus=144,nodes=2,nics=144x400G -b 1M -e 1M
refused_one_line "one gh200 NVLink domain holds at most 256 GPUs" --topo machine:gpu=gh200,gpus=257,intra=nvswitch -b 1M -e 1M
"$ccsim" --topo machine:gpu=gb200,gpus=72 -b 1M -e 1M >/dev/null || bad "one NVL72 rack refused"
"$ccsim" --topo machine:gpu=gb200,gpus=72,nodes=2,nics=72x400G -b 1M -e 1M >/dev/null || bad "two NVL72 racks refused"
"$ccsim" --topo machine:gpu=gh200,gpus=8 -b 1M -e 1M >/dev/null || bad "two quad-GH200 boards (intra=mesh) refused"

# An NV18 topo -m paste without nvidia-smi -L: the kinds it can be, not the whole catalogue of 47.
refused_one_line "give --gpu KIND (b200 b300 gb200 gb300 gh200 h100 h20 h200 h200nvl: the kinds with 18 or more NVLinks, as NV18 from GPU0 to GPU1 needs)" \
  topo import "$src/tests/data/import/h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt"

# rocm-smi --showtopo without the product: AMD's kinds, not NVIDIA's.
refused_one_line "rocm-smi --showtopo does not say which GPU it is: give --gpu KIND (mi100 mi210 mi250 mi250x mi300x mi325x mi350x mi355x: the AMD kinds)" \
  topo import "$src/tests/data/import/rocm-smi-showtopo-8gpu-2x4xgmi-gpu280.txt"
# An AMD box's graph line says what NCCL's words stand for there.
"$ccsim" --topo machine:gpu=mi300x --model nccl -b 1G -e 1G | grep -qF "path nvlink (NCCL's class of xGMI), 1 node(s), arch hopper (the tuning row of cdna3)" ||
  bad "mi300x graph line: $("$ccsim" --topo machine:gpu=mi300x --model nccl -b 1G -e 1G | grep -F 'model sees')"

# A whole number too large for a key said "must be a positive whole number" (1e30 is one): it says the ceiling.
sed 's/"intermediate_size": 28672/"intermediate_size": 1e30/' "$src/scenarios/llama3_70b_4x8_h100.json" >"$tmp/huge.json"
refused_one_line "transformer.intermediate_size must be at most 4194304, got 1e+30" scenario "$tmp/huge.json"

# The student's barrier: it moves no data (docs/course.md: its size is reported as 0), yet --size 0 was refused.
out=$("$ccsim" explain --op barrier --algo dissemination --ranks 13 --alpha 2us --bw 10GB/s --size 0 2>&1) || bad "barrier --size 0: $out"
grep -qF "total                8.000 us" <<<"$out" || bad "barrier --size 0: not 4 rounds of 2 us: $(grep -F total <<<"$out")"
refused_one_line "--size: 0 B holds no whole 4-byte element for allreduce on 8 ranks" explain --op allreduce --algo ring --ranks 8 --size 0

# The ML engineer's next step after the table: the same step under NCCL's model, as the main command's --model.
echo '{"transformer": {"layers": 4, "hidden": 1024, "heads": 16, "seq": 1024}, "parallel": {"tp": 2, "dp": 2}, "topology": "machine:gpu=h100,gpus=4"}' >"$tmp/small.json"
"$ccsim" scenario "$tmp/small.json" --model flow --format json >"$tmp/flow.json" 2>&1 || bad "scenario --model flow: $(cat "$tmp/flow.json")"
grep -qF '"model": "flow"' "$tmp/flow.json" || bad "scenario --model flow: not the flow model: $(grep -F model "$tmp/flow.json")"
refused_one_line "--model: unknown model 'nccll' (fifo, store_forward, flow, nccl;" scenario "$tmp/small.json" --model nccll

# Two machines in one --topo ran the second under the first one's words (gpu=h100|machine:gpu=b200 -> a B200 run).
refused_one_line "one topology per run here ('|' joins one topology per run of compare's trace only)" \
  --topo "machine:gpu=h100|machine:gpu=b200" -b 1M -e 1M
refused_one_line "one topology per run here" scenario "$tmp/small.json" --topo "machine:gpu=h100,gpus=4|machine:gpu=b200,gpus=4"

[ "$fails" -eq 0 ] && echo "new_user_frictions_6: all passed"
exit $((fails > 0))
