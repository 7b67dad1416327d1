#!/bin/bash
# `ccsim rings` end to end: the DGX-1 ranking, 1-based course notation, --explain, --channels, JSON,
# silence on a piped stderr, bad inputs; and the main command's --rings still runs two rings at once.
set -u
ccsim="$1"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$ccsim" rings --topo dgx1 --top 3 >"$tmp/top" 2>"$tmp/err" || fail "rings --topo dgx1 exited $?"
[ -s "$tmp/err" ] && fail "rings wrote to a piped stderr: $(cat "$tmp/err")"
first=$(grep -E '^ +1 ' "$tmp/top" | head -1)
echo "$first" | grep -qE '0 3 2 1 5 6 7 4|0 4 7 6 5 1 2 3' || fail "rank 1 is not the doubled ring: $first"
grep -q 'exhaustive over all 2520 rings' "$tmp/top" || fail "search line missing"
grep -q 'hops: 0->' "$tmp/top" || fail "hop list missing"

"$ccsim" rings --topo dgx1 --one-based --explain 1-2-3-4-5-6-7-8-1 >"$tmp/e1" || fail "one-based explain exited $?"
"$ccsim" rings --topo dgx1 --explain 0,1,2,3,4,5,6,7 >"$tmp/e0" || fail "explain exited $?"
grep -q 'Ring 0 1 2 3 4 5 6 7' "$tmp/e0" || fail "explain header"
grep -q 'limiting hop' "$tmp/e0" || fail "explain has no limiting hop"
grep -q 'Best ring' "$tmp/e0" || fail "explain has no comparison"
# NCCL's p3dn ring among all 2520 rings (docs/choosing-a-ring.md quotes this line).
"$ccsim" rings --topo dgx1 --explain 0,1,3,2,6,4,5,7 --semantics mpi >"$tmp/ep" || fail "p3dn explain exited $?"
grep -qF '  rank: 5th of all 2520 rings (every ring simulated): 4 strictly faster, 149 tied (this one included), 2367 slower' "$tmp/ep" ||
  fail "p3dn ring rank line: $(grep rank: "$tmp/ep")"
diff <(grep -v '^Ring' "$tmp/e0") <(grep -v '^Ring' "$tmp/e1") >/dev/null || fail "1-2-...-8-1 one-based differs from 0..7"

"$ccsim" rings --topo dgx1 --channels 6 --top 1 >"$tmp/ch" || fail "channels exited $?"
grep -q '^  link-disjoint' "$tmp/ch" || fail "6 channels on dgx1 should be link-disjoint"
[ "$(grep -c '^  channel ' "$tmp/ch")" -eq 6 ] || fail "expected 6 channel lines"
# The verdict under the schedules names its bar: with --channels the set (6 rings: 1/6 of the data each), which every
# schedule on one ring order loses to, not "the best ring" (a single ring's time is printed above it).
grep -q '^  no other schedule beats the 6-channel ring set (' "$tmp/ch" || fail "verdict does not name the channel set: $(tail -1 "$tmp/ch")"

"$ccsim" rings --topo dgx1 --gpus 0,1,4,6 --format json >"$tmp/j" || fail "json exited $?"
grep -q '"direct_link_rings": 0' "$tmp/j" || fail "0,1,4,6 should have no direct-link ring"
grep -q '"schedules"' "$tmp/j" || fail "json has no schedule comparison"

"$ccsim" --topo dgx1 --algo ring --op allreduce --rings "0 3 2 1 5 6 7 4|0 1 3 7 5 4 6 2" -b 128M -e 128M >"$tmp/run" ||
  fail "--rings run exited $?"
grep -q '134217728' "$tmp/run" || fail "--rings run printed no 128M row"

"$ccsim" rings --topo dgx1 --channels -1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--channels -1 must exit 2"
# One line naming the flag, exit 2, nothing on stdout (0 used to be taken as "no channels").
bad_one_line() { # expected fragment, then the arguments
  local want="$1"; shift
  timeout 20 "$ccsim" "$@" >"$tmp/bo" 2>"$tmp/be"; local rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/be")" -eq 1 ] && [ ! -s "$tmp/bo" ] && grep -qF -- "$want" "$tmp/be" ||
    fail "ccsim $* -> rc=$rc, want one line with '$want': $(cat "$tmp/be")"
}
bad_one_line "--channels: must be at least 1, got 0" rings --topo dgx1 --channels 0
bad_one_line "--channels: 1000 is more than 64" rings --topo dgx1 --channels 1000
# 7 rings cannot all fit in the NVLink lanes the search uses: say which channels are over, never
# "no directed channel carries more rings than its link has lanes" next to "NOT link-disjoint".
"$ccsim" rings --topo dgx1 --channels 7 --top 1 >"$tmp/ch7" || fail "channels 7 exited $?"
grep -q '^  NOT link-disjoint: [0-9]* directed channels\{0,1\} carr.* (3 rings, 2 lanes)' "$tmp/ch7" ||
  fail "channels 7 does not name the over-subscribed channels: $(grep -i disjoint "$tmp/ch7")"
grep -i 'not link-disjoint' "$tmp/ch7" | grep -q 'no directed channel carries' && fail "channels 7 contradicts itself"
"$ccsim" rings --topo dgx1 --explain 0,1,1,2 >/dev/null 2>&1; [ $? -eq 2 ] || fail "a repeated GPU must exit 2"
# A fragment of a DGX-1 (issue 16): no route may relay through GPUs 3 or 4, which are not allocated; the only
# all-direct ring 0-1-5-7-6-2 ranks first; four channels cannot be link-disjoint on these links and say so.
"$ccsim" rings --topo dgx1 --gpus 0,1,2,5,6,7 --channels 4 --semantics mpi >"$tmp/frag" || fail "fragment exited $?"
grep -q "not chosen" "$tmp/frag" && fail "a route relays through an unallocated GPU: $(grep -m1 'not chosen' "$tmp/frag")"
grep -qE '^ +1 +[0-9.]+ +[0-9.]+  0 1 5 7 6 2 ' "$tmp/frag" || fail "0 1 5 7 6 2 is not ranked first: $(grep -m1 '^ *1 ' "$tmp/frag")"
grep -q "^  NOT link-disjoint" "$tmp/frag" || fail "4 channels on the fragment claim to be link-disjoint"
# --relay-outside lets routes borrow GPU 4 (and says so in the header).
"$ccsim" rings --topo dgx1 --gpus 0,1,2,5,6,7 --relay-outside --semantics mpi >"$tmp/relay" || fail "--relay-outside exited $?"
grep -q "via gpu4 (gpu4 not chosen)" "$tmp/relay" || fail "--relay-outside does not relay through gpu4"
grep -q "routes may relay through other GPUs" "$tmp/relay" || fail "--relay-outside header"

# --gpus A..B is the inclusive range (the same GPUs and order as writing them out); a ring order with
# dashes keeps its meaning.
"$ccsim" rings --topo dgx1 --gpus 0..2,5..7 --channels 4 --semantics mpi >"$tmp/range" || fail "range exited $?"
cmp -s "$tmp/frag" "$tmp/range" || fail "--gpus 0..2,5..7 differs from --gpus 0,1,2,5,6,7"
"$ccsim" --topo dgx1 --gpus 0-3-2-1 -b 1M -e 1M | grep -q "dgx1-v100 (shipped preset topologies/dgx1.json), 4 ranks" || fail "--gpus 0-3-2-1 is not 4 GPUs"

[ "$fails" -eq 0 ] && echo "rings CLI: all checks passed"
exit $((fails > 0))
