#!/bin/bash
# Eighth user trial (a 64 x 8 H200 ring search, an nccl-tests SLURM script run through ccsim, a compare of one run of
# a file, a sweep into a spreadsheet; tests/python/test_ccsim.py holds the Python half). Each friction, fixed and kept
# fixed:
#  - `ccsim rings` on 512 GPUs ran ~110 s with nothing on a terminal: it now says at once what it does and which
#    flags shorten it, and a progress bar follows each simulation;
#  - `ccsim all_reduce_perf --ngp 8` and `-g 8x` were refused, though nccl-tests' getopt_long takes a long option's
#    unambiguous prefix and reads -g with strtol (8x is 8); a repeated option ("-b 1M ... --minbytes 2M") too;
#  - `ccsim compare --run 99999999999` named int's limit, not the file's runs;
#  - `--topo /dev/null` was refused as "a directory or missing", neither of which it is;
#  - a sweep's CSV rank_order cell was ~700 characters on 32 ranks x 8 rings;
#  - "why is my measured busbw lower?" had only compare's err% column: compare now names, per size band, the resource
#    that bounds the prediction, the rate the measured busbw implies for it, and a check to run.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

# rings on 512 GPUs, on a terminal (script gives it one): the note within 5 s (at once here; the search alone takes longer, sanitized builds are slower).
if command -v script >/dev/null; then
  (timeout -k 3 5 script -qec "'$ccsim' rings --topo machine:gpu=h200,nodes=64,nics=8x400G,kind=ib" /dev/null >"$tmp/tty" 2>&1) 2>/dev/null
  grep -qaF "ccsim rings: 512 GPUs: a bounded ring search, then each ring it keeps and every allreduce schedule simulated at 512 ranks" "$tmp/tty" &&
    grep -qaF "fewer GPUs (--gpus 0..31) or a smaller message (--size 1M) shorten it" "$tmp/tty" ||
    bad "rings, 512 GPUs on a terminal: no note within 5 s: $(tr -d '\r' <"$tmp/tty" | head -c 300)"
fi
# Piped, it stays silent (tests/cli/rings.sh: a piped stderr gets nothing), and the flags it names exist.
"$ccsim" rings --topo machine:gpu=h200,nodes=8,nics=8x400G,kind=ib --gpus 0..31 --size 1M --top 1 >"$tmp/out" 2>"$tmp/err" ||
  bad "rings --gpus 0..31 --size 1M: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && bad "rings wrote to a piped stderr: $(head -c 300 "$tmp/err")"
grep -qF "GPUs 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31, allreduce 1 MiB" "$tmp/out" || bad "rings --gpus 0..31: $(head -1 "$tmp/out")"

# The nccl-tests front end reads its flags as nccl-tests' getopt_long and strtol do.
ranks_line() { "$ccsim" all_reduce_perf --topo dgx1 -b 1M -e 1M "$@" 2>&1 | grep -F "# ccsim:" | grep -F "ranks ="; }
for args in "--ngp 8" "--ngpus=8" "--ngp=8" "-g 8x" "-g8" "-g 0x8" "-g 010"; do
  # shellcheck disable=SC2086
  grep -qF "# ccsim: 8 ranks = nThread 1 x nGpus 8;" <<<"$(ranks_line $args)" || bad "all_reduce_perf $args: $(ranks_line $args)"
done
grep -qF "# ccsim: 4 ranks = nThread 1 x nGpus 4;" <<<"$(ranks_line -g 8 --ngp 4)" || bad "the later -g does not win"
"$ccsim" all_reduce_perf --topo dgx1 -g 8x -b 1M -e 1M 2>&1 | grep -qF "# ccsim: read as nccl-tests' strtol reads them (the number, then nothing): -g 8x as 8" ||
  bad "-g 8x read without saying so"
out=$("$ccsim" all_reduce_perf --topo dgx1 -g 8 -b 1M -e 4M --minb=2M 2>&1)
grep -qF "minBytes 2097152 maxBytes 4194304" <<<"$out" || bad "--minb=2M after -b 1M: $(grep -F minBytes <<<"$out")"
refused_one_line "--n: ambiguous, as nccl-tests' getopt_long finds it: --nthreads, --ngpus" all_reduce_perf --topo dgx1 --n 8 -b 1M -e 1M
refused_one_line "-g,--ngpus: 'x8' is not a whole number" all_reduce_perf --topo dgx1 -g x8 -b 1M -e 1M
refused_one_line "-g,--ngpus: 99999999999 is out of range (1..1024)" all_reduce_perf --topo dgx1 -g 99999999999 -b 1M -e 1M

# A --topo that is no regular file says which it is (/dev/null was "a directory or missing").
refused_one_line "/dev/null: not a topology file (a device or pipe, not a regular file)" --topo /dev/null -b 1M -e 1M
refused_one_line "/dev/null: not a topology file (a device or pipe, not a regular file)" topo import /dev/null
refused_one_line "$tmp: not a topology file (a directory)" --topo "$tmp" -b 1M -e 1M

# compare --run: the file's runs, whatever the number's size.
t="$src/tests/data/hypercube-4gpu-crossbar-SYNTHETIC.txt"
for r in 99999999999 99999999999999999999999 -3 2; do
  refused_one_line "--run: $r is not a run of $t (it holds 1: --run 1)" compare --trace "$t" --topo crossbar:ranks=4 --run "$r"
done
refused_one_line "--run: 'x' is not a whole number" compare --trace "$t" --topo crossbar:ranks=4 --run x
"$ccsim" compare --trace "$t" --topo crossbar:ranks=4 --run 1 >/dev/null 2>&1 || bad "compare --run 1 refused"

# A sweep's CSV: rank_order one short cell (ring 0's first 8 ranks and an FNV-1a hash of every order), the full
# orders in JSON lines; the hash is checked against Python's own FNV-1a of the JSON lines' text.
printf '{"defaults": {"op": "allreduce", "bytes": "1M", "model": "nccl"}, "points": [{"topo": "machine:gpu=h100,nodes=4,nics=8x400G"}, {"topo": "dgx1"}]}\n' >"$tmp/plan.json"
"$ccsim" sweep "$tmp/plan.json" -o "$tmp/s.csv" >/dev/null 2>&1 || bad "sweep csv failed"
"$ccsim" sweep "$tmp/plan.json" -o "$tmp/s.jsonl" --format jsonl >/dev/null 2>&1 || bad "sweep jsonl failed"
python3 - "$tmp/s.csv" "$tmp/s.jsonl" <<'PY' || bad "sweep rank_order cell"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
full = [json.loads(l)["rank_order"] for l in open(sys.argv[2])]
h = 2166136261
for c in full[0].encode():
    h = ((h ^ c) * 16777619) & 0xFFFFFFFF
first = full[0].split("|")[0].split()
want = f"8 rings x 32 ranks: {' '.join(first[:8])} ... #{h:08x} (every order: --format jsonl)"
ok = rows[0]["rank_order"] == want and rows[1]["rank_order"] == full[1] and len(full[0]) > 600
if not ok:
    print(f"  got {rows[0]['rank_order']!r}, want {want!r}; dgx1 {rows[1]['rank_order']!r}")
sys.exit(0 if ok else 1)
PY

# "Why is my measured busbw lower?": compare names, per size band, what bounds the prediction and what the measured
# busbw says that resource ran at. DGX-1 (V100): NVLink2 at 25 GB/s each way (topologies/dgx1.json); the band split
# and the rate are recomputed here from the JSON rows (busbw below half the prediction's peak: the latency band).
k="$src/models/traces/dgx1-v100-8gpu-allreduce-konnase.txt"
"$ccsim" compare --trace "$k" --topo dgx1 --model nccl --format json >"$tmp/k.json" 2>"$tmp/err" || bad "compare json: $(cat "$tmp/err")"
python3 - "$tmp/k.json" <<'PY' || bad "compare bounds (JSON)"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
rows, bounds = d["rows"], d.get("bounds")
peak = max(r["predicted_busbw"] for r in rows)
bw = [r for r in rows if r["predicted_busbw"] >= 0.5 * peak]
lat = [r for r in rows if r["predicted_busbw"] < 0.5 * peak]
m = statistics.median(r["measured_busbw"] for r in bw)
p = statistics.median(r["predicted_busbw"] for r in bw)
ok = bounds is not None and len(bounds) == 2
if ok:
    l, b = bounds
    ok = (l["band"] == "latency" and l["rows"] == len(lat) and b["band"] == "bandwidth" and b["rows"] == len(bw)
          and b["bound_by"] == "NVLink" and b["link_type"] == "nvlink2" and b["link_GBps"] == 25
          and 0 < b["used_pct"] <= 100
          and abs(b["link_GBps_at_measured_rate"] - 25 * b["used_pct"] / 100 * m / p) < 1e-9 and "nvidia-smi nvlink --status" in b["text"]
          and b["min_size"] == min(r["size"] for r in bw) and b["max_size"] == max(r["size"] for r in bw))
if not ok:
    print(f"  bounds {bounds!r}; want {len(lat)} latency rows, {len(bw)} bandwidth rows")
sys.exit(0 if ok else 1)
PY
out=$("$ccsim" compare --trace "$k" --topo dgx1 --model nccl 2>&1)
grep -qE "^# why \(bandwidth band, [0-9.]+ [KMG]iB\.\.128 MiB, [0-9]+ rows\): (bound by|no link full in the replay, the most used) [0-9]+ nvlink2 links \(NVLink, 25 GB/s each way" <<<"$out" ||
  bad "compare table: no bandwidth-band line: $(grep -F '# why' <<<"$out")"
grep -qF "# why (latency band, 8 B.." <<<"$out" || bad "compare table: no latency-band line"

# Two refusals the trial left (the lead, after the merge): an empty trace file said "no nccl-tests rows and no NCCL
# ring lines found" without saying the file is empty; explain --bw 0 asked for a unit where no unit makes 0 a rate.
: >"$tmp/empty.txt"
refused_one_line "$tmp/empty.txt: the file is empty" compare --trace "$tmp/empty.txt" --topo dgx1
printf ' \n\n' >"$tmp/blank.txt"
refused_one_line "$tmp/blank.txt: the file is empty" compare --trace "$tmp/blank.txt" --topo dgx1
refused_one_line "--bw: '0' is no bandwidth; give a rate above 0 with a unit" explain --bw 0
refused_one_line "--bw: '25' needs a unit" explain --bw 25

# The bounding link is the one used most, not the one busy longest (the lead, nineteenth session): a send from one node
# to the next is held back by its NIC, and its NVLink hop to the NIC's GPU (PXN) stays busy all along at the NIC's rate.
# The "why" line had named 48 NVLinks "100% busy" at ~520 GB/s each; what bounds it is one 400G NIC per GPU.
sr="$src/tests/data/wild_traces/b200-together-2node-16gpu-sendrecv-1K-256M-ib400-nccl2297.txt"
out=$("$ccsim" compare --trace "$sr" --topo machine:gpu=b200,nodes=2,nics=8x400G,kind=ib --model nccl --op sendrecv 2>&1)
grep -qE "^# why \(bandwidth band, .*\): bound by [0-9]+ ib links \(network, 50 GB/s each way, [0-9]+% used" <<<"$out" ||
  bad "compare: a cross-node sendrecv's bandwidth band is not bound by the network: $(grep -F '# why (band' <<<"$out")"
# On 8 nodes NCCL 2.29 gives each remote peer 2 channels of 14 GB/s (a2anet: models/README.md "P2P across nodes by
# release"): 28 GB/s through a 50 GB/s NIC, 56 % at most. No link is full, so the line must not say "bound by".
sr8="$src/tests/data/wild_traces/b200-together-8node-64gpu-sendrecv-1K-256M-ib400-nccl2297.txt"
out=$("$ccsim" compare --trace "$sr8" --topo machine:gpu=b200,nodes=8,nics=8x400G,kind=ib --model nccl --op sendrecv 2>&1)
grep -qE "^# why \(bandwidth band, .*\): no link full in the replay, the most used [0-9]+ ib links \(network, 50 GB/s each way, ([0-4][0-9]|5[0-6])% used" <<<"$out" ||
  bad "compare: a channel-bound sendrecv's bandwidth band names a link as its bound: $(grep -F '# why (band' <<<"$out")"

[ "$fails" -eq 0 ] && echo "all new-user friction checks (8th trial) pass"
exit $((fails > 0))
