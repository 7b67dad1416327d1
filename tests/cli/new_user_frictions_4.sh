#!/bin/bash
# Fourth user trial (an ML-systems engineer with fresh `nvidia-smi topo -m` / rocm-smi output of machines ccsim has
# no file for, a teacher checking explain's numbers by hand on 8 and 1,000 ranks, a Python user sweeping into
# pandas; tests/python/test_ccsim.py holds the Python half). Each friction, fixed and kept fixed:
#  - explain and the main command refused the double binary tree from about 200 ranks on (and the broadcast/reduce
#    chain from about 1,100 at 1 GiB): tests/cli/segments_many_ranks.sh, a ctest entry of its own (gxx_only);
#  - a table written to a full disk (`ccsim ... > /dev/full`) was lost with exit status 0;
#  - a topo -m matrix whose two rows disagree about a pair (a hand edit) was taken without a word;
#  - `ccsim rings` named the Infinity Fabric hops of an MI300X box "link" where NVLink hops say "NVLink";
#  - explain's numbers could not be redone by hand where a block of n/p is whole elements (ring, p = 1000);
#  - `--algo tree` (NCCL_ALGO=Tree, the teacher's "a tree") listed the algorithms without saying which one it is;
#  - `ccsim rings` on an NVSwitch box (8 x H20, 4 x GB200) said "no ring over direct GPU-GPU links exists ... every
#    ring has a routed hop", a warning, where every order is equally fast;
#  - plot_sweep.py labelled sweeps of two imported matrices alike, "topo-m-8gpu allreduce chosen per size by the
#    model (choice column)", so the legend could not tell the user's machines apart.
set -u
ccsim="$1"; src="$2"
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

. "$(dirname "$0")/refused_one_line.sh" # refused_one_line WANT ARGS...: exit 2, one stderr line, no stdout

# A failed write to stdout is an error, exit 2 and one line, for every command that prints.
for cmd in "-b 1M -e 1M" "all_reduce_perf -b 1M -e 1M -g 8" "topo show dgx1" "rings --topo dgx1 --top 1" \
           "explain --op allreduce --algo ring --ranks 8 --size 1M --alpha 5us --bw 25GB/s"; do
  # shellcheck disable=SC2086
  "$ccsim" $cmd >/dev/full 2>"$tmp/err"; rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "standard output: write failed: No space left on device" "$tmp/err" ||
    bad "ccsim $cmd >/dev/full: rc=$rc $(cat "$tmp/err")"
done

# Two rows of one matrix that disagree about a pair are refused, naming both lines. In the shipped H100 paste GPU0's
# row (line 7) says NV18 to GPU1; make GPU1's row (line 8) say PIX to GPU0.
m="$src/tests/data/import/h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt"
sed -n 8p "$m" | grep -q "^GPU1 *NV18" || bad "fixture changed: line 8 of $m is not GPU1's row starting NV18"
sed '8s/NV18/PIX /' "$m" >"$tmp/asym.txt"
refused_one_line "line 7: the GPU0 row says NV18 to GPU1, but line 8: the GPU1 row says PIX to GPU0" --topo "$tmp/asym.txt" --gpu h100 -b 1M -e 1M
refused_one_line "the GPU0 row says NV18 to GPU1" topo import "$tmp/asym.txt" --gpu h100 -o "$tmp/asym.json"
[ -e "$tmp/asym.json" ] && bad "topo import of a refused_one_line matrix left $tmp/asym.json"

# MI300X: one Infinity Fabric (xGMI) link per GPU pair (AMD Instinct MI300X platform data sheet), so every hop of
# every ring is one direct xGMI link, and rings says so as it says "NVLink" on a DGX-1.
out=$("$ccsim" rings --topo machine:gpu=mi300x --top 1 2>&1)
grep -qF "hops: 0->1 xGMI | 1->2 xGMI" <<<"$out" || bad "rings on MI300X: $(grep hops: <<<"$out" | head -1)"
grep -qE -- "->[0-9]+ link( |$)" <<<"$out" && bad "rings on MI300X still names a hop 'link': $(grep hops: <<<"$out" | head -1)"

# explain's sums by hand. Ring allreduce, p = 1000, n = 1 MiB of floats: 262144 elements in 1000 blocks, the largest
# ceil(262144 / 1000) = 263 floats = 1052 B; 999 reduce-scatter and 999 allgather steps, each one message of the
# largest block on the critical path: 1998 x 1052 B = 2101896 B at 25 GB/s = 84.07584 us; latency 1998 x 5 us.
out=$("$ccsim" explain --op allreduce --algo ring --ranks 1000 --size 1M --alpha 5us --bw 25GB/s)
grep -qF "by hand: latency 1998 x 5 us; bandwidth 999 x 1052 B + 999 x 1052 B = 2101896 B at 25 GB/s" <<<"$out" ||
  bad "explain ring p=1000: by-hand line: $(grep 'by hand' <<<"$out")"
grep -qE "bandwidth term +84\.076 us" <<<"$out" || bad "explain ring p=1000: bandwidth term not 84.076 us"
grep -qE "latency term +9990\.000 us" <<<"$out" || bad "explain ring p=1000: latency term not 9990 us"

# plot_sweep.py names an imported machine by its file (matplotlib's SVG keeps each text as a comment).
a="$src/tests/data/import/h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt" b="$src/tests/data/import/b200-gke-a4-topo-m-dranet.txt"
"$ccsim" --topo "$a" --gpu h100 --model nccl -b 1M -e 16M --format json --output "$tmp/a.json" &&
  "$ccsim" --topo "$b" --gpu b200 --model nccl -b 1M -e 16M --format json --output "$tmp/b.json" &&
  "$src/scripts/plot_sweep.py" "$tmp/a.json" "$tmp/b.json" -o "$tmp/two" >/dev/null || bad "plot_sweep on two imported machines failed"
for want in "h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt allreduce model nccl" "b200-gke-a4-topo-m-dranet.txt allreduce model nccl"; do
  grep -qF "<!-- $want -->" "$tmp/two.svg" || bad "plot_sweep legend: no '$want' in $(grep -o '<!-- [^>]*allreduce[^>]* -->' "$tmp/two.svg")"
done

# On an HGX board every pair is one NVSwitch hop (18 NVLink4 lanes each, H100 data sheet): the order cannot matter.
out=$("$ccsim" rings --topo "$src/tests/data/import/h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt" --gpu h100 --top 2 2>&1)
grep -qF "# every pair meets through the NVSwitch at the same bandwidth and latency: every ring order is as fast" <<<"$out" ||
  bad "rings on an NVSwitch box: $(sed -n 3p <<<"$out")"
t1=$(awk '$1 == "1" {print $2}' <<<"$out") t2=$(awk '$1 == "2" {print $2}' <<<"$out")
[ -n "$t1" ] && [ "$t1" = "$t2" ] || bad "rings on an NVSwitch box: the two best rings differ ($t1 vs $t2 us)"
# A fragmented DGX-1 allocation still says it has no direct ring.
"$ccsim" rings --topo dgx1 --gpus 0,1,4,6 --top 1 | grep -qF "# no ring over direct GPU-GPU links exists" || bad "rings --gpus 0,1,4,6 on dgx1"

# NCCL's and the literature's names for an algorithm point at ccsim's name for it.
refused_one_line "no algorithm 'tree' for allreduce (available for allreduce: ring, " explain --op allreduce --algo tree --ranks 8
refused_one_line "; for tree give double_binary_tree (NCCL's Tree)" explain --op allreduce --algo Tree --ranks 8
refused_one_line "; for rabenseifner give halving_doubling (Rabenseifner)" --algo rabenseifner -b 1M -e 1M
refused_one_line "no algorithm 'tree' for broadcast (available for broadcast: ring, binomial" --op broadcast --algo tree -b 1M -e 1M
grep -qF "give double_binary_tree" "$tmp/err" && bad "broadcast --algo tree points at double_binary_tree, which broadcast has not"

[ "$fails" -eq 0 ] && echo "fourth-trial frictions: all fixed" || exit 1
