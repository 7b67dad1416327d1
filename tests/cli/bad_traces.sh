#!/bin/bash
# Malformed trace files: `ccsim compare` must print exactly one line on stderr naming the problem
# (the fragment in each file's "# expect:" line), nothing on stdout, and exit 2. Also bad
# compare/calibrate command lines.
set -u
ccsim="$1"; dir="$2"
fails=0; n=0
check() { # expected-fragment, then the command's arguments
  local want="$1"; shift
  n=$((n+1))
  local out err rc lines
  out=$(mktemp); err=$(mktemp)
  timeout 60 "$ccsim" "$@" >"$out" 2>"$err"; rc=$?
  lines=$(wc -l <"$err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$out" ] || ! grep -qF -- "$want" "$err"; then
    echo "FAIL: ccsim $* -> rc=$rc, stderr lines=$lines, stdout bytes=$(wc -c <"$out"), want '$want'"; sed 's/^/  | /' "$err"
    fails=$((fails+1))
  fi
  rm -f "$out" "$err"
}
for f in "$dir"/*.txt; do
  want=$(sed -n 's/^# expect: //p' "$f" | head -1)
  [ -z "$want" ] && { echo "FAIL: $f has no '# expect:' line"; fails=$((fails+1)); continue; }
  check "$want" compare --topo dgx1-v100 --trace "$f"
done
good="$dir/../../../models/traces/dgx1-v100-8gpu-allreduce-konnase.txt"
check "--trace" compare --topo dgx1-v100
check "cannot open" compare --topo dgx1-v100 --trace /no/such/trace.txt
check "--model" compare --topo dgx1-v100 --trace "$good" --model quantum
check "--format" compare --topo dgx1-v100 --trace "$good" --format xml
check "--gpu-arch" compare --topo dgx1-v100 --trace "$good" --model nccl --gpu-arch vax
check "--params" compare --topo dgx1-v100 --trace "$good" --params /no/such/params.json
check "--params $good: malformed JSON" compare --topo dgx1-v100 --trace "$good" --params "$good"
check "neither a file nor a shipped topology" compare --topo nosuchmachine --trace "$good"
check "need at least" calibrate --topo dgx1-v100 --trace "$good" --min-size 64M -o /tmp/ccsim-never-written.json
[ -e /tmp/ccsim-never-written.json ] && { echo "FAIL: calibrate wrote a file after refusing"; fails=$((fails+1)); rm -f /tmp/ccsim-never-written.json; }
check "--topo for" calibrate --topo dgx1-v100 --topo dgx1-v100 --trace "$good" --trace "$good" --trace "$good" -o /tmp/x.json
# A 2,000,000-space NCCL INFO Ring line overflowed the stack of a recursive std::regex.
long=$(mktemp)
{ echo "# op: all_reduce"; printf 'x NCCL INFO Ring 00 : %*s\n' 2000000 ""; echo " 8 2 float sum 10 0 0 0 10 0 0 0"; } >"$long"
check "the trace does not say how many ranks ran" compare --topo dgx1-v100 --trace "$long"
rm -f "$long"
# A non-UTF-8 file name in JSON output (nlohmann threw on dumping it: exit 3).
odd=$(mktemp -d); cp "$good" "$odd/$(printf '\xfe').txt"
out=$("$ccsim" compare --topo dgx1-v100 --trace "$odd/$(printf '\xfe').txt" --format json 2>&1); rc=$?
n=$((n+1)); if [ "$rc" -ne 0 ] || ! printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)'; then
  echo "FAIL: compare --format json with a non-UTF-8 trace name -> rc=$rc"; fails=$((fails+1)); fi
rm -rf "$odd"
echo "bad traces: $((n-fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
