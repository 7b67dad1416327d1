#!/bin/bash
# Eighteenth user trial: the owner of a machine ccsim may not know by name, a cluster acceptance engineer with a folder
# of nccl-tests outputs, and a user whose output went through a Windows editor or a chat tool. Each friction, fixed and
# kept fixed:
#  - a run nccl-tests itself found wrong (#wrong 3 on some rows, "Out of bounds values : 12 FAILED") got the verdict
#    "ok" in a folder's summary and exit 0, and one file's compare said nothing of it;
#  - a file cut inside its last row (a job killed mid-write) was refused as "row has 3 columns but the header names 13";
#  - a file saved as UTF-16 (Notepad's "Unicode") was "binary data"; no-break spaces (a chat tool's copy) made every row free text: "no nccl-tests rows ... found"; a UTF-8 BOM hid the
#    first '#' line (the nThread line); thousands separators were "expected a table row" (or, from the first row, no
#    row at all and no line named), a decimal comma "is not a number" with no word of why; a word processor's minus
#    sign (root "−1") "is not a whole number"; a chat tool's Markdown table of the output had "no nccl-tests rows";
#  - a folder inside the --trace folder (a job's own) was left out in silence; a folder of folders said "holds no files";
#  - machine:gpu=h20e or gpu=b300hgx listed 47 kinds and no suggestion; --topo hgx-h20 (or node=hgx-h20 in cluster:)
#    listed the shipped presets and not the words that draw that machine, machine:gpu=h20;
#  - topo show of a machine: printed 22.4 GB/s "source: two sockets" and 63 GB/s "source: 2 GPU(s) per PCIe switch":
#    the figures' own sources (models/gpus.json) were in no line.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
for v in $(env | grep -oE '^(NCCL|RCCL|HSA|SLURM|OMPI|PMI)_[A-Z0-9_]*'); do unset "$v"; done
one_line() { # WHAT RC_WANTED STDERR_FILE RC: exactly one line on stderr and the exit code wanted
  local n; n=$(wc -l <"$3")
  [ "$4" = "$2" ] && [ "$n" = 1 ] || { bad "$1: exit $4 (want $2), $n stderr line(s):"; sed 's/^/  | /' "$3"; }
}
topo="machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"
good="$src/tests/data/wild_traces/h100-xe9680-2node-16gpu-allreduce-8B-16G-ib400-nccl2262-nccltests309.txt"
mkdir -p "$tmp/acc" "$tmp/clean" "$tmp/paste"
cp "$good" "$tmp/acc/n01-n02.txt"
cp "$good" "$tmp/clean/n01-n02.txt"
# Variants of one 2-node H100 run, made by rewriting its table rows (nccl-tests' columns: size count type redop root,
# then time algbw busbw #wrong for out-of-place and in-place).
/usr/bin/python3 - "$good" "$tmp" <<'EOF'
import re, sys
src, tmp = sys.argv[1], sys.argv[2]
lines = open(src, encoding="utf-8").read().splitlines(True)
row = re.compile(r"^\s+\d+\s+\d+\s+float")
def rows(edit):
    out = []
    for l in lines:
        if row.match(l):
            t = l.split()
            t = edit(t) or t
            l = "  ".join(t) + "\n"
        out.append(l)
    return out
def put(name, ls, enc="utf-8"):
    with open(tmp + "/" + name, "w", encoding=enc, newline="") as f: f.write("".join(ls))
def wrong(t):  # #wrong 3 on the out-of-place half of 1 MiB..8 MiB
    if 1048576 <= int(t[0]) <= 8388608: t[8] = "3"
put("acc/n03-n04.txt", [l.replace("Out of bounds values : 0 OK", "Out of bounds values : 12 FAILED") for l in rows(wrong)])
def na(t):     # -c 0 prints N/A in #wrong: only the closing line can say the run failed
    t[8] = t[12] = "N/A"
put("acc/n05-n06.txt", [l.replace("Out of bounds values : 0 OK", "Out of bounds values : 12 FAILED") for l in rows(na)])
text = "".join(lines)
cut = text.index("\n", text.index("   4194304 ")) + 1
put("acc/n07-n08.txt", [text[:cut + 30]])  # ends 30 bytes into the 8 MiB row, no line end
# Pasted copies: no-break spaces between the cells, a Latin-1 one, a BOM before the first '#' line (no device list),
# thousands separators, decimal commas, CRLF and tabs.
put("paste/nbsp.txt", rows(lambda t: t.__setitem__(slice(None), ["\u00a0".join(t)])))
put("paste/latin1.txt", rows(lambda t: t.__setitem__(slice(None), ["\u00a0".join(t)])), enc="latin-1")
body = [l for l in lines[lines.index(next(l for l in lines if l.startswith("# nThread"))):] if "Rank " not in l and "help" not in l]
put("paste/bom.txt", ["\ufeff"] + body)
put("paste/thousands.txt", rows(lambda t: t.__setitem__(0, f"{int(t[0]):,}")))
put("paste/thousands-all.txt", [l for l in rows(lambda t: t.__setitem__(0, f"{int(t[0]):,}")) if not re.match(r"^\d{1,3}  ", l)])
put("paste/comma.txt", rows(lambda t: t.__setitem__(slice(None), [x.replace(".", ",") for x in t])))
put("paste/minus.txt", rows(lambda t: t.__setitem__(4, "\u22121")))  # a word processor's minus sign in the root column
pipe = []
for l in rows(lambda t: t.__setitem__(slice(None), ["| " + " | ".join(t) + " |"])):
    if l.startswith("#       size"):
        pipe += ["| size | count | type | redop | root | time | algbw | busbw | #wrong | time | algbw | busbw | #wrong |\n",
                 "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"]
    elif not l.startswith("#        (B)"):
        pipe.append(l)
put("paste/pipes.txt", pipe)  # a chat tool's Markdown table of the output
with open(tmp + "/paste/utf16.txt", "wb") as f:  # Notepad's "Unicode" save: UTF-16LE behind FF FE, CRLF
    f.write("".join(lines).replace("\n", "\r\n").encode("utf-16"))
put("paste/crlf-tabs.txt", [l.rstrip("\n") + "\r\n" for l in rows(lambda t: t.__setitem__(slice(None), ["\t".join(t)]))])
EOF

# --- (b) a folder of acceptance runs: a run nccl-tests found wrong fails, whatever its speed ------------------------
"$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/acc" >"$tmp/out" 2>"$tmp/err"; rc=$?
grep -E "^$tmp/acc/n03-n04.txt .*FAILED: nccl-tests found wrong results \(#wrong above 0 on 4 rows, 1 MiB\.\.8 MiB" "$tmp/out" >/dev/null ||
  bad "#wrong 3 on 4 rows: not FAILED: $(grep n03 "$tmp/out")"
grep -E "^$tmp/acc/n05-n06.txt .*FAILED: .*'Out of bounds values : 12 FAILED'" "$tmp/out" >/dev/null ||
  bad "#wrong N/A, closing line FAILED: not FAILED: $(grep n05 "$tmp/out")"
grep -E "^$tmp/acc/n01-n02.txt .* ok$" "$tmp/out" >/dev/null || bad "the clean run is not ok: $(grep n01 "$tmp/out")"
# The file cut inside a row: not compared, and the reason says it was cut.
grep -qF "$tmp/acc/n07-n08.txt:" "$tmp/err" && grep -qF "the file ends inside this row" "$tmp/err" ||
  bad "a file cut inside its last row: $(cat "$tmp/err")"
tail -1 "$tmp/out" | grep -qF "4 run(s): 1 ok, 0 below, 2 failed (wrong results), 0 without a verdict, 1 not compared; exit status 2 (0 all ok, 1 a run below or failed, 2 a file not compared)" ||
  bad "tally: $(tail -1 "$tmp/out")"
[ "$rc" = 2 ] || bad "folder with a file not compared: exit $rc, want 2"
# Without the cut file: the failed runs make exit 1 (a script's "this cluster fails acceptance"), not 0.
rm "$tmp/acc/n07-n08.txt"
"$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/acc" --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
[ "$rc" = 1 ] || bad "folder with failed runs: exit $rc, want 1"
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
v = [r["verdict"] for r in j["runs"]]
assert v == ["ok", "failed", "failed"], v
assert j["counts"]["failed"] == 2 and j["exit_status"] == 1, j["counts"]
assert j["runs"][1]["wrong_results"].startswith("#wrong above 0 on 4 rows"), j["runs"][1]
' "$tmp/out.json" 2>"$tmp/err" || bad "summary JSON: $(tail -1 "$tmp/err")"
# One file's compare says it first.
"$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/acc/n03-n04.txt" >"$tmp/out" 2>&1
grep -qE "^# trace: FAILED: nccl-tests found wrong results" "$tmp/out" || bad "one file's compare: no FAILED note"
# A clean folder reads as before: no "failed" count, exit 0.
"$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/clean" --summary >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 0 ] && tail -1 "$tmp/out" | grep -qF "1 run(s): 1 ok, 0 below, 0 without a verdict, 0 not compared; exit status 0 (0 all ok, 1 a run below, 2 a file not compared)" ||
  bad "clean folder: exit $rc, $(tail -1 "$tmp/out")"

# A folder inside the folder (a job's own folder) is named as skipped, not dropped in silence; a folder of folders
# says how to give them.
mkdir -p "$tmp/clean/job7" "$tmp/jobs/a" "$tmp/jobs/b" && cp "$good" "$tmp/clean/job7/out.txt" && cp "$good" "$tmp/jobs/a/" && cp "$good" "$tmp/jobs/b/"
"$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/clean" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 0 ] && grep -qF "# skipped: $tmp/clean/job7 (a folder inside a --trace folder: not searched" "$tmp/out" &&
  grep -qF "skipped the folder $tmp/clean/job7" "$tmp/err" || bad "a folder inside the folder: exit $rc, not named: $(cat "$tmp/err")"
"$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/jobs" >/dev/null 2>"$tmp/err"; rc=$?
one_line "--trace a folder of folders" 2 "$tmp/err" "$rc"
grep -qF "only folders (e.g. $tmp/jobs/a), which are not searched: give them, e.g. --trace $tmp/jobs/*" "$tmp/err" || bad "a folder of folders: $(cat "$tmp/err")"

# --- (c) a copy through a Windows editor or a chat tool --------------------------------------------------------------
for f in nbsp latin1 crlf-tabs minus pipes utf16; do
  "$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/paste/$f.txt" --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
  [ "$rc" = 0 ] && /usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["rows"]) == 32, len(j["rows"])' "$tmp/out.json" ||
    bad "$f.txt: exit $rc, not its 32 rows: $(head -2 "$tmp/err")"
done
"$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/paste/bom.txt" --format json >"$tmp/out.json" 2>"$tmp/err"
grep -q '"ranks_from": ".*nThread' "$tmp/out.json" || bad "bom.txt: the nThread line behind the BOM was not read: $(grep ranks_from "$tmp/out.json")"
for s in "thousands:thousands separator:67" "thousands-all:thousands separator:" "comma:decimal comma:60"; do
  IFS=: read -r f why line <<<"$s"
  "$ccsim" compare --topo "$topo" --model nccl --trace "$tmp/paste/$f.txt" >/dev/null 2>"$tmp/err"; rc=$?
  one_line "$f.txt" 2 "$tmp/err" "$rc"
  grep -qE "$tmp/paste/$f.txt:${line:-[0-9]+}: .*$why" "$tmp/err" || bad "$f.txt: the refusal names no line or not the $why: $(cat "$tmp/err")"
done

# --- (a) a GPU ccsim may not know by name ----------------------------------------------------------------------------
for s in "h20e:did you mean h20, h200" "b300hgx:did you mean b300?" "RTX-PRO-6000-Blackwell:did you mean rtxpro6000?"; do
  g=${s%%:*}; want=${s#*:}
  "$ccsim" --topo "machine:gpu=$g" -b 1M -e 1M >/dev/null 2>"$tmp/err"; rc=$?
  one_line "machine:gpu=$g" 2 "$tmp/err" "$rc"
  grep -qF "unknown gpu '$g'" "$tmp/err" && grep -qF "$want" "$tmp/err" && grep -qF "models/gpus.json" "$tmp/err" ||
    bad "machine:gpu=$g: no '$want' or no models/gpus.json: $(cat "$tmp/err")"
done
# A preset name made of a kind the catalogue has (no preset draws it): the refusal gives the words that do.
for n in "cluster:nodes=2,node=hgx-h20,nics=8x400G:h20" "hgx-b300:b300" "8xh20:h20"; do
  t=${n%:*}; k=${n##*:}
  "$ccsim" --topo "$t" -b 1M -e 1M >/dev/null 2>"$tmp/err"; rc=$?
  one_line "--topo $t" 2 "$tmp/err" "$rc"
  grep -qF "described in words: machine:gpu=$k " "$tmp/err" || bad "--topo $t: no machine:gpu=$k in $(cat "$tmp/err")"
done
# The machines of this trial, in a few words each.
for m in "gpu=rtxpro6000,gpus=8" "gpu=h20" "gpu=l20,gpus=8" "gpu=gh200,gpus=4" "gpu=b300" "gpu=l4,gpus=4" "gpu=mi325x" \
         "gpu=l40s,gpus=10,sockets=2"; do
  "$ccsim" --topo "machine:$m" -b 1M -e 1M >/dev/null 2>"$tmp/err" || bad "machine:$m: exit $?: $(cat "$tmp/err")"
done
# Every figure with its source: the socket link's and each PCIe and NVLink link's.
"$ccsim" topo show machine:gpu=rtxpro6000,gpus=8 >"$tmp/show" 2>&1
grep -E "^  cpu0 +- cpu1 +upi .*source: .*11\.2 GT/s x 2 bytes = 22\.4 GB/s" "$tmp/show" >/dev/null || bad "topo show: the UPI link's 22.4 GB/s has no source: $(grep upi "$tmp/show" | head -1)"
n=$(grep -cE "^  [a-z0-9_]+ +- [a-z0-9_]+ +pcie5 " "$tmp/show"); k=$(grep -cE "^  [a-z0-9_]+ +- [a-z0-9_]+ +pcie5 .*models/gpus\.json pcie\.pcie5\.bw: PCIe Gen5 x16" "$tmp/show")
[ "$n" -gt 0 ] && [ "$n" = "$k" ] || bad "topo show: $k of $n pcie5 links name where 63 GB/s comes from"
"$ccsim" topo show machine:gpu=h20 --max-gpus 0 >"$tmp/show" 2>&1
grep -qE "^  gpu0 +- nvswitch +nvlink4 .*25GB/s per link per direction from models/gpus.json gpus\.h20\.nvlink_bw" "$tmp/show" ||
  bad "topo show: an NVLink link names no source for its 25 GB/s: $(grep -m1 nvlink4 "$tmp/show")"

echo "new_user_frictions_18: $fails failure(s)"
exit $((fails > 0))
