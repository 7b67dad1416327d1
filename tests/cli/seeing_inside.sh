#!/bin/bash
# --timeline, --timeline-size, --links and the progress bar, through the real binary.
# Usage: seeing_inside.sh path/to/ccsim [SANITIZED(0|1)]
set -u
ccsim="$1"
# The progress runs below must outlast the bar's 300 ms: 512 and 1024 ranks do in Release (~0.3 and ~1.5 s). Under
# ASan+UBSan each transfer costs ~10x more, so a quarter of the ranks (1/16 of the ring's transfers) gives about
# the same seconds (1024 ranks took 16.7 s of CPU there) and the same checks.
small=512 big=1024
[ "${2:-0}" = 1 ] && small=128 big=256
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
ok() { n=$((n+1)); }
bad() { n=$((n+1)); fails=$((fails+1)); echo "FAIL: $*"; }
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# Timeline of the largest size by default, a file of its own; stdout keeps the table.
"$ccsim" --topo dgx1 -b 1M -e 4M --timeline "$tmp/t.json" >"$tmp/out" 2>"$tmp/err" \
  && [ "$(json "$tmp/t.json" "j['otherData']['size_bytes']")" = 4194304 ] && [ ! -s "$tmp/err" ] \
  && [ "$(grep -vc '^#' "$tmp/out")" = 3 ] && ok || bad "--timeline defaults to the largest size"
# The chosen size, inside the sweep or not (then simulated on its own), has the table's time.
"$ccsim" --topo dgx1 -b 1M -e 4M --timeline "$tmp/t2.json" --timeline-size 2M >"$tmp/out" \
  && [ "$(json "$tmp/t2.json" "j['otherData']['size_bytes']")" = 2097152 ] \
  && awk '$1==2097152 {print $6}' "$tmp/out" | grep -qx "$(json "$tmp/t2.json" "'%.2f' % j['otherData']['makespan_us']")" \
  && ok || bad "--timeline-size 2M: the trace's makespan is the table's time"
"$ccsim" --topo dgx1 -b 1M -e 4M --timeline "$tmp/t3.json" --timeline-size 3M >/dev/null \
  && [ "$(json "$tmp/t3.json" "j['otherData']['size_bytes']")" = 3145728 ] && ok || bad "--timeline-size outside the sweep"

# --links: after the table, every line a comment; JSON under "links".
"$ccsim" --topo dgx1 -b 1M -e 4M --links >"$tmp/out" 2>"$tmp/err" \
  && grep -q '^# Bottleneck link' "$tmp/out" && grep -q '^# Critical path: ring ' "$tmp/out" \
  && [ "$(grep -vc '^#' "$tmp/out")" = 3 ] && ok || bad "--links text"
"$ccsim" --topo dgx1 -b 1M -e 4M --links --format json >"$tmp/out.json" \
  && [ "$(json "$tmp/out.json" "len(j['rows']), j['links']['size'], j['links']['critical_path']['segments'][-1]['end_us'] == j['links']['critical_path']['finish_us']")" = "3 4194304 True" ] \
  && ok || bad "--links --format json"
"$ccsim" --topo dgx1 -e 1M --links --model store_forward --reduce-bw 200GB/s >"$tmp/out" \
  && grep -q '^#   moving data' "$tmp/out" && ok || bad "--links with store_forward and reductions"

# Bad combinations: one line, exit 2, nothing on stdout.
expect_error() { # fragment, args...
  local want="$1"; shift
  "$ccsim" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$want" "$tmp/err"; then ok
  else bad "ccsim $* -> rc=$rc, want '$want'"; cat "$tmp/err"; fi
}
expect_error "--links" -e 1M --links --format csv
expect_error "--timeline-size" -e 1M --timeline-size 1M
expect_error "--timeline" -e 1M --timeline -
expect_error "--timeline: needs a file name" -e 1M --timeline ""
expect_error "--timeline-size" -e 1M --links --timeline-size 0
expect_error "too many to draw" --topo crossbar:ranks=512,bw=25GB/s,alpha=1us -b 64M -e 64M --timeline "$tmp/big.json"
[ ! -e "$tmp/big.json" ] && ok || bad "a refused timeline leaves no file"

# Progress: nothing on stderr when it is not a terminal; a bar (erased at the end) when it is.
"$ccsim" --topo crossbar:ranks=$small,bw=25GB/s,alpha=1us -b 1M -e 1G >/dev/null 2>"$tmp/err" \
  && [ ! -s "$tmp/err" ] && ok || bad "progress bar written to a pipe"
if command -v script >/dev/null; then
  # The bar appears only after 300 ms of work: 1024 ranks take ~1.5 s (256 sanitized), far enough past it on a fast machine.
  TERM=xterm script -qec "'$ccsim' --topo crossbar:ranks=$big,bw=25GB/s,alpha=1us -b 1M -e 1G >/dev/null" "$tmp/tty" >/dev/null 2>&1
  grep -q 'sizes' "$tmp/tty" && grep -q $'\r\033\[K' "$tmp/tty" && ok || bad "no progress bar on a terminal"
else
  echo "skipped: no 'script' command to give ccsim a terminal"
fi

# One pipeline: the NCCL model's replay is seen like any other model's (issue 13's "done when").
"$ccsim" --model nccl -b 32M -e 32M --timeline "$tmp/nccl.json" --links >"$tmp/nccl.txt" \
  && python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['traceEvents']; sys.exit(not any('ring 0 loop' in str(x.get('args', x.get('name',''))) or 'ring 0 loop' in x.get('name','') for x in e))" "$tmp/nccl.json" \
  && grep -q '^# Bottleneck link' "$tmp/nccl.txt" && grep -q 'ring/Simple ch=12' "$tmp/nccl.txt" && ok || bad "--model nccl --timeline --links"
"$ccsim" rings --model nccl --top 1 >"$tmp/rings.txt" && grep -q 'model nccl' "$tmp/rings.txt" && ok || bad "rings --model nccl"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); s.setdefault('network',{})['model']='nccl'; s['degrees']=[8]; json.dump(s,open(sys.argv[2],'w'))" \
  "$(dirname "$0")/../../scenarios/lm300m_dgx1.json" "$tmp/scenario.json"
"$ccsim" scenario "$tmp/scenario.json" >"$tmp/sc.txt" && grep -q 'network model nccl' "$tmp/sc.txt" && ok || bad "scenario with network.model nccl"

echo "seeing_inside: $((n-fails)) passed, $fails failed"
[ $fails -eq 0 ]
