#!/bin/bash
# A scenario file names its parameter set with network.params ("none" or a file; a relative path is read from the
# scenario file's folder, whatever the working directory), as --params does; --params given wins. The header and
# JSON (scenario.network_params) name the set and where it came from. A bad value: one line naming the file and
# network.params, exit 2. Second route to the numbers: the same scenario without the key run with --params FILE.
set -u
ccsim="$1"; src=$(pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scen" "$tmp/elsewhere"
# A parameter set of one's own beside the scenario: the shipped one with 5 us more per message.
/usr/bin/python3 - models/params-nccl-default.json "$tmp/scen/mine.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["params"]["step_us"] = d["params"].get("step_us", 0) + 5
json.dump(d, open(sys.argv[2], "w"))
PY
# $1: file to write; $2: the network block's params value as JSON ("" = no key)
write() {
  /usr/bin/python3 - scenarios/lm300m_dgx1.json "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["network"] = {"model": "nccl"}
if sys.argv[3]: d["network"]["params"] = json.loads(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
write "$tmp/scen/plain.json" ""
write "$tmp/scen/mine_rel.json" '"mine.json"'
write "$tmp/scen/none.json" '"none"'
comm() { # the 8-GPU fp32 step's comm_ms and the JSON's network_params: comm FILE [flags...]
  local f=$1; shift
  (cd "$tmp/elsewhere" && "$ccsim" scenario "$f" --bucket-size 1G --no-overlap --format json "$@") | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(s["comm_ms"] for s in d["steps"] if s["gpus"] == 8 and s["grad_dtype"] == "float"), "|", d["scenario"].get("network_params"))'
}
want_mine=$(comm "$tmp/scen/plain.json" --params "$tmp/scen/mine.json") || fail "plain --params mine: exit $?"
want_none=$(comm "$tmp/scen/plain.json" --params none) || fail "plain --params none: exit $?"
want_default=$(comm "$tmp/scen/plain.json") || fail "plain: exit $?"
[ "${want_mine%% |*}" != "${want_default%% |*}" ] || fail "the own set changes nothing: $want_mine vs $want_default"
got=$(comm "$tmp/scen/mine_rel.json") || fail "network.params mine.json: exit $?"
[ "${got%% |*}" = "${want_mine%% |*}" ] || fail "network.params mine.json: comm $got, --params gives $want_mine"
[ "${got#*| }" = "$tmp/scen/mine.json (network.params in $tmp/scen/mine_rel.json)" ] || fail "network_params: ${got#*| }"
got=$(comm "$tmp/scen/none.json") || fail "network.params none: exit $?"
[ "${got%% |*}" = "${want_none%% |*}" ] || fail "network.params none: comm $got, --params none gives $want_none"
[ "${got#*| }" = "no parameter set (network.params in $tmp/scen/none.json)" ] || fail "network_params (none): ${got#*| }"
# --params wins, and says over what.
got=$(comm "$tmp/scen/mine_rel.json" --params none) || fail "--params none over the key: exit $?"
[ "${got%% |*}" = "${want_none%% |*}" ] || fail "--params none over the key: comm $got, want $want_none"
[ "${got#*| }" = "no parameter set (--params, over network.params $tmp/scen/mine.json)" ] || fail "network_params (--params none): ${got#*| }"
# The table's header names it too.
(cd "$tmp/elsewhere" && "$ccsim" scenario "$tmp/scen/mine_rel.json") | grep -qF "network model nccl + $tmp/scen/mine.json (network.params in $tmp/scen/mine_rel.json)" ||
  fail "header: $(cd "$tmp/elsewhere" && "$ccsim" scenario "$tmp/scen/mine_rel.json" | grep 'network model')"
# A hybrid-parallel scenario reads the key the same way.
/usr/bin/python3 - scenarios/llama3_70b_4x8_h100.json "$tmp/scen/hybrid.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.setdefault("network", {})["model"] = "nccl"
d["network"]["params"] = "mine.json"
json.dump(d, open(sys.argv[2], "w"))
PY
(cd "$tmp/elsewhere" && "$ccsim" scenario "$tmp/scen/hybrid.json") | grep -qF "network model nccl + $tmp/scen/mine.json (network.params in $tmp/scen/hybrid.json)" ||
  fail "hybrid header: $(cd "$tmp/elsewhere" && "$ccsim" scenario "$tmp/scen/hybrid.json" 2>&1 | grep -i 'network model\|error\|scenario')"
# Bad values: one line naming the scenario file and network.params, exit 2.
echo '{"step_us": "fast"}' > "$tmp/scen/broken.json"
for v in '"nope.json"' '3' '""' '"broken.json"'; do
  write "$tmp/scen/bad.json" "$v"
  err=$(cd "$tmp/elsewhere" && "$ccsim" scenario "$tmp/scen/bad.json" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -qF "$tmp/scen/bad.json" <<<"$err" && grep -qF "network.params" <<<"$err" ||
    fail "network.params $v: exit $rc, '$err'"
done
[ $fails -eq 0 ] && echo "scenario_params_key: all passed"
exit $((fails > 0))
