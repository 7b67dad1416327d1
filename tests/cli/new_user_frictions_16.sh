#!/bin/bash
# Sixteenth user trial (an ML-systems engineer choosing a ring order for their own machine and handing it to NCCL,
# a topology author writing a JSON topology for a machine ccsim does not know, a user of the visual outputs). Each
# friction, fixed and kept fixed:
#  - `ccsim rings` ranked the orders but never said how to give the winner to NCCL: no NCCL_RINGS line (NCCL up to
#    2.4.8) and no way to write NCCL's graph XML (NCCL_GRAPH_FILE, NCCL 2.6.4 and later);
#  - a topology file's unknown key was ignored: "lanse": 4 (for "lanes") silently left the link at one lane, a
#    misspelt "strucure" silently routed a torus as a general graph (keys starting with _ stay free, as comments);
#  - a second link of one type between the same two nodes was accepted and ignored (the router takes one link per
#    pair): a user who wrote two links for two lanes got half the bandwidth without a word.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL|HSA|SLURM|OMPI|PMI)_[A-Z0-9_]*'); do unset "$v"; done

# --- (a) the winning ring, handed to NCCL -----------------------------------------------------------------------------
# DGX-1V: the doubled-NVLink ring 0-3-2-1-5-6-7-4 is the only ring of 50 GB/s hops (docs/choosing-a-ring.md). By hand,
# --semantics mpi: 2(p-1) = 14 steps, each 128 MiB / 8 = 16777216 B over 50 GB/s plus one NVLink's 0.6 us:
# 14 x (0.6 + 16777216 / 50000) us = 4706.02 us.
out=$("$ccsim" rings --topo dgx1 --top 1 --semantics mpi --nccl-graph "$tmp/ring.xml" 2>&1)
echo "$out" | grep -qE '^ +1 +4706\.02 .* 0 3 2 1 5 6 7 4 ' || bad "rings dgx1: best ring is not 0 3 2 1 5 6 7 4 at 4706.02 us: $out"
echo "$out" | grep -qF 'NCCL_RINGS="0 3 2 1 5 6 7 4"' || bad "rings dgx1: no NCCL_RINGS line for the best ring"
echo "$out" | grep -qF 'NCCL_GRAPH_FILE=ring.xml' || bad "rings dgx1: the output does not say how to use NCCL_GRAPH_FILE"
# NCCL's graph XML as src/graph/search.cc ncclTopoGetGraphFromXmlSub reads it: graphs version 1, the ring graph
# (id 0, pattern 4 = NCCL_TOPO_PATTERN_RING), one <channel> per ring of <gpu dev> in hex (strtol base 16).
check_graph() { # FILE EXPECTED_TYPEINTRA EXPECTED_CHANNELS EXPECTED_FIRST_RING(space-separated or -) GPUS(space-separated)
  python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
f, typeintra, nch, first, gpus = sys.argv[1:6]
root = ET.parse(f).getroot()
assert root.tag == "graphs" and root.get("version") == "1", root.attrib
(g,) = root.findall("graph")
assert g.get("id") == "0" and g.get("pattern") == "4" and g.get("crossnic") == "0", g.attrib
assert g.get("typeintra") == typeintra, (g.get("typeintra"), typeintra)
for a in ("speedintra", "speedinter", "latencyinter", "typeinter", "samechannels"):
    assert g.get(a) is not None, a
assert float(g.get("speedintra")) > 0
chans = g.findall("channel")
assert len(chans) == int(nch) == int(g.get("nchannels")), (len(chans), nch, g.get("nchannels"))
want = sorted(int(x) for x in gpus.split())
for c in chans:
    ring = [int(e.get("dev"), 16) for e in c.findall("gpu")]
    assert sorted(ring) == want, ring
if first != "-":
    ring = [int(e.get("dev"), 16) for e in chans[0].findall("gpu")]
    assert ring == [int(x) for x in first.split()], ring
PY
}
check_graph "$tmp/ring.xml" NVL 1 "0 3 2 1 5 6 7 4" "0 1 2 3 4 5 6 7" || bad "rings --nccl-graph: dgx1 best ring XML"
# Six channels: six <channel> elements, each a ring over all 8 GPUs.
"$ccsim" rings --topo dgx1 --top 1 --channels 6 --nccl-graph "$tmp/six.xml" > /dev/null 2>&1 || bad "rings --channels 6 --nccl-graph: failed"
check_graph "$tmp/six.xml" NVL 6 - "0 1 2 3 4 5 6 7" || bad "rings --channels 6 --nccl-graph: XML"
# A fragmented allocation: GPUs 0,1,4,6 are ranks 0..3 (rank i on the i-th GPU given), so the best ring 0 1 4 6 is
# NCCL_RINGS "0 1 2 3"; its hops 1->4 and 6->0 cross two NVLinks through gpu0 and gpu4, NCCL's NVB.
out=$("$ccsim" rings --topo dgx1 --gpus 0,1,4,6 --top 1 --nccl-graph "$tmp/four.xml" 2>&1)
echo "$out" | grep -qE '^ +1 .* 0 1 4 6 ' || bad "rings 0,1,4,6: best ring is not 0 1 4 6: $out"
echo "$out" | grep -qF 'NCCL_RINGS="0 1 2 3"' || bad "rings 0,1,4,6: NCCL_RINGS is not in ranks: $(echo "$out" | grep NCCL_RINGS)"
check_graph "$tmp/four.xml" NVB 1 "0 1 4 6" "0 1 4 6" || bad "rings 0,1,4,6 --nccl-graph: XML"
# --explain ORDER writes that order. 1-2-3-4-5-6-7-8-1 one-based is 0..7, whose 3->4 and 7->0 go through a GPU (NVB).
"$ccsim" rings --topo dgx1 --one-based --explain 1-2-3-4-5-6-7-8-1 --nccl-graph "$tmp/exp.xml" > /dev/null 2>&1 || bad "rings --explain --nccl-graph: failed"
check_graph "$tmp/exp.xml" NVB 1 "0 1 2 3 4 5 6 7" "0 1 2 3 4 5 6 7" || bad "rings --explain --nccl-graph: XML"
# The JSON carries the same words.
"$ccsim" rings --topo dgx1 --top 1 --format json > "$tmp/r.json" 2>&1
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['nccl']['NCCL_RINGS'] == '0 3 2 1 5 6 7 4', d.get('nccl')" "$tmp/r.json" ||
  bad "rings --format json: no nccl.NCCL_RINGS"
# Over two nodes a graph file cannot say it (one node's chain between NICs): one line naming the flag, exit 2, no file.
err=$("$ccsim" rings --topo cluster:nodes=2,node=dgx1,nics=4x100G --top 1 --nccl-graph "$tmp/two.xml" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || bad "rings --nccl-graph over two nodes: exit $rc"
echo "$err" | grep -q -- '--nccl-graph' || bad "rings --nccl-graph over two nodes: '$err'"
[ ! -e "$tmp/two.xml" ] || bad "rings --nccl-graph over two nodes: a file was written"

# --- (b) a topology author's own file ---------------------------------------------------------------------------------
# 4 GPUs, NVLink bridges on two pairs (4 lanes each), every GPU on one CPU's root port.
cat > "$tmp/box.json" <<'J'
{
 "name": "my-box",
 "description": "4 GPUs, NVLink bridges on two pairs, PCIe otherwise.",
 "link_types": {
  "nvlink3": {"bw": "25GB/s", "latency": "0.6us", "source": "bw: one NVLink3 lane; latency: as the presets"},
  "pcie4": {"bw": "31.5GB/s", "latency": "1us", "source": "bw: x16 Gen4; latency: as the presets"}
 },
 "nodes": [{"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"}, {"name": "gpu2", "kind": "gpu"},
           {"name": "gpu3", "kind": "gpu"}, {"name": "cpu0", "kind": "cpu"}],
 "links": [
  {"a": "gpu0", "b": "gpu1", "type": "nvlink3", "lanes": 4, "source": "bridge"},
  {"a": "gpu2", "b": "gpu3", "type": "nvlink3", "lanes": 4, "source": "bridge"},
  {"a": "gpu0", "b": "cpu0", "type": "pcie4", "source": "slot"},
  {"a": "gpu1", "b": "cpu0", "type": "pcie4", "source": "slot"},
  {"a": "gpu2", "b": "cpu0", "type": "pcie4", "source": "slot"},
  {"a": "gpu3", "b": "cpu0", "type": "pcie4", "source": "slot"}
 ]
}
J
"$ccsim" --topo "$tmp/box.json" -b 1M -e 1M > /dev/null 2>&1 || bad "the author's box.json does not run"
refused() { # FILE PATTERN...: exit 2, one line naming the file and every PATTERN
  local f=$1; shift
  local err rc
  err=$("$ccsim" --topo "$f" -b 1M -e 1M 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || { bad "$(basename "$f"): exit $rc, not 2 ($err)"; return; }
  [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || bad "$(basename "$f"): more than one line: $err"
  for p in "$(basename "$f")" "$@"; do echo "$err" | grep -qF -- "$p" || bad "$(basename "$f"): '$p' not in '$err'"; done
}
sed 's/"lanes": 4, "source": "bridge"}/"lanse": 4, "source": "bridge"}/' "$tmp/box.json" > "$tmp/lanse.json"
refused "$tmp/lanse.json" 'links[0]' "'lanse'" 'lanes'
sed 's/{"name": "gpu2", "kind": "gpu"}/{"name": "gpu2", "knid": "gpu", "kind": "gpu"}/' "$tmp/box.json" > "$tmp/knid.json"
refused "$tmp/knid.json" 'nodes[2]' "'knid'"
sed 's/"name": "my-box",/"name": "my-box", "strucure": {"kind": "general"},/' "$tmp/box.json" > "$tmp/strucure.json"
refused "$tmp/strucure.json" "'strucure'" 'structure'
sed 's/"bw": "25GB\/s", "latency": "0.6us"/"bandwidth": "25GB\/s", "bw": "25GB\/s", "latency": "0.6us"/' "$tmp/box.json" > "$tmp/lt.json"
refused "$tmp/lt.json" 'link_types.nvlink3' "'bandwidth'"
# A key starting with _ is a comment, wherever it is: the file runs as without it.
python3 - "$tmp/box.json" "$tmp/notes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["_note"] = "bought 2026"; d["nodes"][0]["_slot"] = 1; d["links"][0]["_why"] = {"bridge": [1, 2]}
d["link_types"]["_about"] = "measured"; d["link_types"]["pcie4"]["_x"] = 0
json.dump(d, open(sys.argv[2], "w"))
PY
a=$("$ccsim" --topo "$tmp/box.json" -b 1M -e 1M 2>&1 | tail -1); b=$("$ccsim" --topo "$tmp/notes.json" -b 1M -e 1M 2>&1 | tail -1)
[ -n "$a" ] && [ "$a" = "$b" ] || bad "comment keys: '$b' vs '$a'"
# Two links for two lanes: refused naming both, with the lanes to write instead.
sed 's/{"a": "gpu2", "b": "gpu3", "type": "nvlink3", "lanes": 4, "source": "bridge"},/&\n  {"a": "gpu3", "b": "gpu2", "type": "nvlink3", "lanes": 4, "source": "second bridge"},/' "$tmp/box.json" > "$tmp/twice.json"
refused "$tmp/twice.json" 'links[2]' 'links[1]' '"lanes": 8'
# Units in a string: "200Gb/s" (bits) per lane is 25 GB/s, the same machine.
sed 's/"bw": "25GB\/s"/"bw": "200Gb\/s"/' "$tmp/box.json" > "$tmp/bits.json"
a=$("$ccsim" --topo "$tmp/box.json" -b 64M -e 64M 2>&1 | tail -1); b=$("$ccsim" --topo "$tmp/bits.json" -b 64M -e 64M 2>&1 | tail -1)
[ -n "$a" ] && [ "$a" = "$b" ] || bad "200Gb/s per lane does not give 25GB/s's row: '$a' vs '$b'"
# What is refused through `topo show --dot` too (the drawing is checked by the same reader).
err=$("$ccsim" topo show "$tmp/lanse.json" --dot 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && echo "$err" | grep -qF "'lanse'" || bad "topo show --dot lanse.json: exit $rc: $err"

exit $((fails > 0))
