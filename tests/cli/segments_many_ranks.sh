#!/bin/bash
# Fourth user trial, first friction: explain and the main command refused the double binary tree from about 200
# ranks on (and the broadcast/reduce chain from about 1,100 at 1 GiB) with "--chunk-size: ... use a larger
# --chunk-size", a flag the user never gave: the segment ccsim chose itself went past the schedule's own segment
# limit. Its own ctest entry (was the first check of new_user_frictions_4.sh) so that CI runs it in the g++ tree
# only: ~45 s of CPU under ASan for a numeric comparison (.ci/run says why).
set -u
ccsim="$1"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

# The segment explain and the sweep choose stays within what the schedule runs. The formula and the engine are two
# routes to the time: on explain's ideal machine they must agree to the picosecond, as for small p.
for args in "--op allreduce --algo double_binary_tree --ranks 1000 --size 1M" \
            "--op allreduce --algo double_binary_tree --ranks 200 --size 1G" \
            "--op broadcast --algo ring --ranks 2000 --size 1G"; do
  # shellcheck disable=SC2086
  out=$(timeout 60 "$ccsim" explain $args --alpha 5us --bw 25GB/s 2>&1); rc=$?
  [ "$rc" -eq 0 ] || { bad "explain $args: rc=$rc $(tail -1 <<<"$out")"; continue; }
  grep -qF "chosen to minimise the formula's time" <<<"$out" || bad "explain $args: no chosen segment line"
  grep -qF "they agree exactly (to the picosecond)" <<<"$out" ||
    grep -qF "the formula counts blocking send-recv rounds" <<<"$out" || bad "explain $args: formula and simulation differ"
done
out=$(timeout 60 "$ccsim" --topo crossbar:ranks=200,bw=25GB/s,alpha=5us --algo double_binary_tree -b 1M -e 1M 2>&1) ||
  bad "main command, double_binary_tree on 200 ranks: $out"

[ "$fails" -eq 0 ] && echo "segments on many ranks: all run, formula and simulation agree" || exit 1
