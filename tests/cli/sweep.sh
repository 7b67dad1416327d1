#!/bin/bash
# `ccsim sweep` end to end: rows equal the main command's own CSV for the same flags, a failing point
# records its error and the sweep goes on, -j 1 and -j 2 write the same bytes, JSON lines parse, resume
# from an output file and from a journal (torn last line included), bad plans give one line and exit 2.
set -u
ccsim="$1"
sanitized="${2:-0}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$tmp"

cat >plan.json <<'P'
{
  "defaults": {"b": "1K", "e": "1M", "f": 32},
  "grid": {"topo": ["dgx1", "crossbar:ranks=4,bw=25GB/s,alpha=1us"], "algo": ["ring", "bogus", "recursive_doubling"]},
  "points": [{"topo": "dgx1", "ring": "0,3,2,1,5,6,7,4", "bytes": "8M"},
             {"topo": "hgx-h100", "model": "nccl", "bytes": "1G", "nvls": "off"},
             {"topo": "dgx1", "p2p": "off", "bytes": "4M", "eager": true}]
}
P
"$ccsim" sweep plan.json -j 1 -o j1.csv 2>err1 || fail "sweep -j 1 exited $?"
# Piped: no progress bar; only the one line that counts the failed points ('bogus' twice) and gives the first's error.
grep -v '^ccsim sweep: 2 of 9 points failed (their rows carry the error column); the first, point 1: --algo: no algorithm .bogus.' err1 | grep -q . &&
  fail "sweep wrote to a piped stderr: $(cat err1)"
[ "$(wc -l < err1)" -eq 1 ] || fail "sweep: the failed points' line is missing or repeated: $(cat err1)"
"$ccsim" sweep plan.json -j 2 -o j2.csv || fail "sweep -j 2 exited $?"
cmp -s j1.csv j2.csv || fail "-j 1 and -j 2 tables differ"
[ -e j1.csv.ccsim-journal ] && fail "journal left after a finished sweep"
head -1 j1.csv | grep -qx 'point,b,e,f,topo,algo,ring,bytes,model,nvls,p2p,eager,topology,ranks,rank_order,size,count,type,reduction,root_rank,time_us,time_ps,algbw_GBps,busbw_GBps,algorithm,protocol,channels,loops,simulated,checked,strategy,step_ms,compute_ms,comm_ms,exposed_ms,samples_per_s,speedup,efficiency,error' ||
  fail "header: $(head -1 j1.csv)"
# 6 grid points (2 failing: 'bogus') with 3 sizes or 1 error row each, then 3 points of one size: 4*3+2+3 rows.
[ "$(tail -n +2 j1.csv | wc -l)" -eq 17 ] || fail "expected 17 rows, got $(tail -n +2 j1.csv | wc -l)"
grep -q "^1,.*,\"--algo: no algorithm 'bogus' for allreduce" j1.csv || fail "point 1 has no error row"
# Point 0's 1 MiB row against the main command's own CSV for the same flags (time_us, algbw, busbw).
want=$("$ccsim" --topo dgx1 --algo ring -b 1M -e 1M --format csv | tail -1 | cut -d, -f6-8)
got=$(grep '^0,' j1.csv | grep ',1048576,' | awk -F, '{print $21","$23","$24}')
[ "$want" = "$got" ] || fail "point 0 at 1M: sweep $got, ccsim $want"
want=$("$ccsim" --topo hgx-h100 --model nccl -b 1G -e 1G --nvls off --format csv | tail -1 | cut -d, -f6-8,9-12)
got=$(grep '^7,' j1.csv | awk -F, '{print $21","$23","$24","$25","$26","$27","$28}')
[ "$want" = "$got" ] || fail "point 7 (nccl): sweep $got, ccsim $want"
want=$("$ccsim" --topo dgx1 --p2p off --eager -b 4M -e 4M --format csv | tail -1 | cut -d, -f6)
got=$(grep '^8,' j1.csv | cut -d, -f21)
[ "$want" = "$got" ] || fail "point 8 (--p2p off --eager): sweep $got, ccsim $want"
grep '^8,' j1.csv | grep -q ',dgx1-v100-nopp2p,\|,dgx1-v100-nop2p,' || fail "point 8 did not run with P2P off"
# The --p2p off of point 8 must not leak into other points on the same thread.
grep '^6,' j1.csv | grep -q ',dgx1-v100,' || fail "point 6 ran on a P2P-off machine"

"$ccsim" sweep plan.json --format jsonl -o t.jsonl || fail "jsonl exited $?"
python3 -c '
import json, sys
rows = [json.loads(l) for l in open("t.jsonl")]
assert len(rows) == 17, len(rows)
assert rows[0]["point"] == 0 and rows[0]["size"] == 1024 and rows[0]["error"] == ""
assert rows[3]["ranks"] is None and "bogus" in rows[3]["error"]
' || fail "JSON lines do not parse as expected"

# Training-scenario points (`ccsim scenario` flags): one row per step, step times as `ccsim scenario` prints them.
scen="$root/scenarios/lm300m_dgx1.json"
echo "{\"grid\": {\"scenario\": [\"$scen\"], \"bucket-size\": [\"25M\", \"1G\"]}, \"points\": [{\"scenario\": \"$scen\", \"algo\": \"ring\"}]}" >scen.json
"$ccsim" sweep scen.json -o scen.csv || fail "scenario sweep exited $?"
want=$("$ccsim" scenario "$scen" --bucket-size 1G | awk '$1 == "dgx1-v100" && $3 == "half" && $4 == 8 {print $6}')
got=$(python3 - <<'PY'
import csv
for r in csv.DictReader(open("scen.csv")):
    if r["point"] == "1" and r["type"] == "half" and r["ranks"] == "8":
        print("%.3f" % float(r["step_ms"]))
PY
)
[ -n "$want" ] && [ "$want" = "$got" ] || fail "scenario step at 8 GPUs, half, one bucket: sweep $got, ccsim scenario $want"
grep -q '^2,.*The following argument was not expected: --algo=ring' scen.csv || fail "a main-command flag on a scenario point is not its error"

# Resume from an output file: a sweep of the first two grid points, then the whole plan: only the rest run.
python3 -c '
import json; p = json.load(open("plan.json")); p["grid"]["topo"] = ["dgx1"]; del p["points"]; json.dump(p, open("part.json", "w"))'
"$ccsim" sweep part.json -o resumed.csv || fail "part exited $?"
"$ccsim" sweep plan.json -o resumed.csv --stats 2>stats || fail "resume exited $?"
# The part's 'bogus' point ended in an error: it runs again (its error may have been mended since), the other two resume.
grep -q '^sweep: 7 points run (2 resumed)' stats || fail "resume from the output file: $(head -1 stats)"
cmp -s resumed.csv j1.csv || fail "resumed table differs from a fresh one"
# Resume from a journal: a whole entry is used as it is, a torn last line is ignored.
echo '{"points": [{"topo": "dgx1", "bytes": "1M"}, {"topo": "dgx1", "bytes": "2M"}]}' >two.json
cells='"dgx1-v100","8","0","1048576","262144","float","sum","-1","1.000000","1000000","1.000000","1.750000","ring","","","","","","","","","","","","","",""'
printf '{"key":"--topo=dgx1\\u001f-b\\u001f1M\\u001f-e\\u001f1M\\u001f","cells":[[%s]]}\n{"key":"--topo=dgx1\\u001f-b\\u001f2M' "$cells" >j.csv.ccsim-journal
"$ccsim" sweep two.json -o j.csv --stats 2>stats || fail "journal resume exited $?"
grep -q '^sweep: 1 points run (1 resumed)' stats || fail "resume from the journal: $(head -1 stats)"
grep -q '^0,dgx1,1M,dgx1-v100,8,0,1048576,262144,float,sum,-1,1.000000,' j.csv || fail "journal row not used: $(sed -n 2p j.csv)"
grep -q '^1,dgx1,2M,dgx1-v100,8,' j.csv || fail "point 1 not run after a torn journal line"
[ -e j.csv.ccsim-journal ] && fail "journal left after the resumed sweep"
# A row that cannot be printed again (a word in a number's column, a broken checked object: a hand-edited table or
# journal) is not resumed: its point runs again. The JSON lines writer threw on it ("internal error", exit 3).
bad_cells=$(printf '%s' "$cells" | sed 's/"1.000000","1000000"/"abc","1000000"/')
printf '{"key":"--topo=dgx1\\u001f-b\\u001f1M\\u001f-e\\u001f1M\\u001f","cells":[[%s]]}\n' "$bad_cells" >jb.jsonl.ccsim-journal
"$ccsim" sweep two.json -o jb.jsonl --format jsonl --stats 2>stats || fail "resume from a journal row with a word for a number exited $?"
grep -q '^sweep: 2 points run (0 resumed)' stats || fail "a journal row with a word for a number was resumed: $(head -1 stats)"
grep -q '"time_us":"abc"\|"time_us":abc' jb.jsonl && fail "the word was printed again"
grep -q '"checked":null' jb.jsonl || fail "jb.jsonl holds no row with an empty checked cell"
sed 's/"time_us":[0-9.]*/"time_us":"abc"/' jb.jsonl >jc.jsonl
sed 's/"checked":null/"checked":"{x"/' jb.jsonl >jd.jsonl
for f in jc jd; do
  "$ccsim" sweep two.json -o $f.jsonl --format jsonl --stats 2>stats || fail "resume from an edited output ($f) exited $?"
  grep -q '^sweep: 2 points run (0 resumed)' stats || fail "an edited output's row ($f) was resumed: $(head -1 stats)"
done
# An interrupted sweep resumed gives the fresh table (a few seconds of points, interrupted after one).
# Under ASan+UBSan sizes up to 1 MiB take those seconds (5.6 s of CPU; to 1 GiB, 19.6 s, run twice here).
last=1G; [ "$sanitized" = 1 ] && last=1M
echo '{"defaults": {"b": "8", "e": "'$last'", "topo": "dgx1"}, "grid": {"algo": ["recursive_doubling", "ring", "halving_doubling", "double_binary_tree"], "semantics": ["gpu", "mpi"]}}' >long.json
"$ccsim" sweep long.json -o fresh.csv || fail "long plan exited $?"
timeout -s INT 0.5 "$ccsim" sweep long.json -j 1 -o int.csv 2>/dev/null
if [ -e int.csv ]; then echo "note: the sweep finished before the interrupt; resume from a journal not exercised here"
else [ -s int.csv.ccsim-journal ] || fail "an interrupted sweep left no journal"; fi
"$ccsim" sweep long.json -o int.csv || fail "resume after interrupt exited $?"
cmp -s int.csv fresh.csv || fail "table after an interruption differs from a fresh one"

# A journal that cannot be written (file size limit, as a full disk) stops the sweep: one line, exit 2, no table.
(ulimit -f 1; "$ccsim" sweep long.json -j 1 -o full.csv >out 2>err); rc=$?
[ $rc -eq 2 ] || fail "journal past the file size limit: exit $rc"
grep -q -- '-o/--output full.csv: cannot write its resume journal full.csv.ccsim-journal' err || fail "journal write error: $(cat err)"
[ "$(wc -l <err)" -eq 1 ] || fail "journal write error is not one line: $(cat err)"
[ -e full.csv ] && fail "a table was written after the journal failed"

# Bad plans: one line naming the file and the element, exit 2, no output file.
bad() { # name json expected-substring
  echo "$2" >"$1.json"
  "$ccsim" sweep "$1.json" -o "$1.out" >out 2>err; rc=$?
  [ $rc -eq 2 ] || fail "$1: exit $rc"
  [ "$(wc -l <err)" -eq 1 ] || fail "$1: not one line: $(cat err)"
  grep -qF -- "$3" err || fail "$1: message '$(cat err)' lacks '$3'"
  [ -e "$1.out" ] && fail "$1: output file written"
}
bad unknown '{"grid": {"topo": ["dgx1"], "bogus": [1]}}' 'unknown.json: "grid.bogus": unknown parameter'
bad malformed '{"grid": ' 'malformed.json: malformed JSON'
bad notlist '{"grid": {"topo": "dgx1"}}' '"grid.topo": expected a non-empty list'
bad forbidden '{"points": [{"format": "json"}]}' '"points[0].format": '"'"'format'"'"' is not a point parameter'
bad flagvalue '{"points": [{"eager": "yes"}]}' '"points[0].eager": expected true or false'
bad empty '{"points": []}' 'the plan has no points'
bad key '{"grid": {"topo": ["dgx1"]}, "extra": 1}' '"extra": unknown key'
bad huge '{"grid": {"a": ["ring","x","y","z","w","v","u","t","s","r"], "b": [1,2,3,4,5,6,7,8,9,10], "e": [1,2,3,4,5,6,7,8,9,10], "f": [1,2,3,4,5,6,7,8,9,10], "r": [1,2,3,4,5,6,7,8,9,10], "d": [1,2,3,4,5,6,7,8,9,10], "o": [1,2,3,4,5,6,7,8,9,10], "i": [1,2,3,4,5,6,7,8,9,10]}}' 'more than 10000000 points'
"$ccsim" sweep nothere.json >out 2>err; [ $? -eq 2 ] && grep -q 'nothere.json: cannot open' err || fail "missing plan: $(cat err)"
"$ccsim" sweep plan.json -j -3 >out 2>err; [ $? -eq 2 ] || fail "-j -3 accepted"
"$ccsim" sweep plan.json --format xml >out 2>err; [ $? -eq 2 ] || fail "--format xml accepted"
mkfifo pipe
"$ccsim" sweep plan.json -o pipe >out 2>err; [ $? -eq 2 ] && grep -q 'pipe is not a regular file' err || fail "-o onto a pipe: $(cat err)"
[ -p pipe ] || fail "the pipe was replaced"

[ $fails -eq 0 ] && echo "sweep: all checks passed"
exit $((fails > 0))
