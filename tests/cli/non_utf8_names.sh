#!/bin/bash
# A file name need not be UTF-8 (Linux names are bytes): compare over a folder holding one, with --format json, wrote
# nothing and exited 3 ("internal error: [json.exception.type_error.316] invalid UTF-8 byte") after comparing every
# run, as nlohmann's dump() throws on such a string. Found by the fuzz4 session's audit; the JSON now carries U+FFFD
# for the bytes, as the single-run JSON output does.
set -u
. "$(dirname "$0")/check_preamble.sh" # ccsim, src, CCSIM_DATA_DIR, fails, $tmp, bad
mkdir "$tmp/runs"
name=$(printf 'run-\xff\xfe.txt')
cp "$src/tests/data/wild_traces/h100-p5-8gpu-allreduce-8B-16G-tagoutput-awsbatch.txt" "$tmp/runs/$name"
for args in "--trace $tmp/runs" "--trace $tmp/runs/$name --summary"; do
  # shellcheck disable=SC2086 # the words of $args, none with a space
  "$ccsim" compare $args --model nccl --topo machine:gpu=h100 --op allreduce --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
  # 0: every run ok, 1: a run below --healthy; 2 (a file not compared) or 3 (an internal error) is the bug.
  [ "$rc" -le 1 ] || bad "compare $args --format json: exit $rc ($(head -c 200 "$tmp/err"))"
  python3 -c "
import json, sys
j = json.load(open(sys.argv[1], encoding='utf-8'))
assert j['kind'] == 'ccsim-compare-summary', j['kind']
assert any('\ufffd' in r['file'] for r in j['runs']), [r['file'] for r in j['runs']]
" "$tmp/out.json" 2>/dev/null || bad "compare $args --format json: not JSON naming the file with U+FFFD"
done
echo "non-UTF-8 names: $fails failure(s)"
exit $((fails > 0))
