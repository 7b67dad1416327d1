#!/bin/bash
# Output files are all-or-nothing and never written through a planted link: every output goes to a fresh
# mkstemps temporary beside its target and is renamed over it only after the whole command succeeded.
set -u
ccsim="$1"
fails=0; n=0
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
only() { # the directory holds exactly these names (sorted, space separated)
  local got; got=$(cd "$d" && ls -A | sort | tr '\n' ' ' | sed 's/ $//')
  n=$((n+1)); [ "$got" = "$1" ] || fail "$2: directory holds '$got', want '$1'"
}

# Success: both outputs published, no temporary left.
"$ccsim" --topo dgx1 -b 1M -e 1M --timeline "$d/t.json" --output "$d/out.txt" 2>/dev/null || fail "plain run failed"
only "out.txt t.json" "a run with --timeline and --output"
rm -f "$d"/*

# The main output fails after --timeline was produced: neither is left behind.
"$ccsim" --topo dgx1 -b 1M -e 1M --timeline "$d/t.json" --output "$d/no/such/dir/x.txt" 2>/dev/null
rc=$?; n=$((n+1)); [ "$rc" -eq 2 ] || fail "--output into a missing directory: exit $rc, want 2"
only "" "--timeline with a failing --output"

# Disk full (a file size limit): one line, exit 2, no temporary left.
err=$( (ulimit -f 1; "$ccsim" --topo dgx1 -b 8 -e 128M --output "$d/big.txt") 2>&1 >/dev/null); rc=$?
n=$((n+1)); { [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"big.txt: write failed"* ]]; } ||
  fail "write past ulimit -f: exit $rc, stderr '$err'"
only "" "a write past ulimit -f"

# A symlink planted at the old predictable temporary name is neither followed nor removed.
echo "precious" >"$d/victim"
ln -s "$d/victim" "$d/out.txt.ccsim-tmp"
"$ccsim" --topo dgx1 -b 1M -e 1M --output "$d/out.txt" 2>/dev/null || fail "run beside a planted link failed"
n=$((n+1)); [ "$(cat "$d/victim")" = "precious" ] || fail "the planted link's target was overwritten"
n=$((n+1)); grep -q "busbw" "$d/out.txt" || fail "out.txt does not hold the table"
only "out.txt out.txt.ccsim-tmp victim" "beside a planted link"
rm -f "$d"/*

# A symlink at the target itself is replaced, not written through.
echo "precious" >"$d/victim"
ln -s "$d/victim" "$d/out.txt"
"$ccsim" --topo dgx1 -b 1M -e 1M --output "$d/out.txt" 2>/dev/null || fail "run over a link failed"
n=$((n+1)); [ "$(cat "$d/victim")" = "precious" ] || fail "the target link's file was overwritten"
n=$((n+1)); [ -L "$d/out.txt" ] && fail "out.txt is still a link"

rm -f "$d"/*

# A FIFO (like /dev/null, not a regular file) is written into, not replaced by a regular file.
mkfifo "$d/pipe"
cat "$d/pipe" >"$d/got" &
reader=$!
"$ccsim" --topo dgx1 -b 1M -e 1M --output "$d/pipe" 2>/dev/null || fail "run into a FIFO failed"
# A ccsim that never opened the FIFO left the reader blocked in its open, and `wait` would hang until ctest's
# timeout: open and close the write end without blocking (no reader left: ENXIO, nothing to do), so the reader
# gets its end of file and the checks below say what went wrong.
python3 -c 'import os, sys
try:
    os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK))
except OSError:
    pass' "$d/pipe"
wait "$reader"
n=$((n+1)); [ -p "$d/pipe" ] || fail "the FIFO was replaced"
n=$((n+1)); grep -q "busbw" "$d/got" || fail "the FIFO's reader did not get the table"
n=$((n+1)); "$ccsim" --topo dgx1 -b 1M -e 1M --output /dev/null 2>/dev/null && [ -c /dev/null ] || fail "--output /dev/null"
n=$((n+1)); [ "$("$ccsim" --topo dgx1 -b 1M -e 1M --output /dev/stdout 2>/dev/null | grep -c busbw)" -ge 1 ] || fail "--output /dev/stdout"

rm -f "$d"/*
# An output that is one of the run's inputs is refused, one line naming the flag, and the input is left as it was
# (compare --trace t.txt --output t.txt replaced the measured trace with its report). So is a second output to one file.
same() { # what, the file that must be unchanged, command...
  local what="$1" keep="$2" before err rc; shift 2
  before=$(cksum <"$keep")
  err=$("$@" 2>&1 >/dev/null); rc=$?
  n=$((n+1)); { [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"of its own"* ]]; } ||
    fail "$what: exit $rc, stderr '$err'"
  n=$((n+1)); [ "$(cksum <"$keep")" = "$before" ] || fail "$what: $keep was changed"
}
printf '#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n 1048576 262144 float sum -1 100.0 10.49 18.35 0 100.0 10.49 18.35 0\n' >"$d/t.txt"
same "compare --output its --trace" "$d/t.txt" "$ccsim" compare --trace "$d/t.txt" --topo dgx1 --op allreduce --output "$d/t.txt"
same "compare --output its --trace by another path" "$d/t.txt" "$ccsim" compare --trace "$d/t.txt" --topo dgx1 --op allreduce --output "$d/./t.txt"
cp "$(dirname "$0")/../../topologies/dgx1.json" "$d/m.json"
same "rings --nccl-graph its --topo" "$d/m.json" "$ccsim" rings --topo "$d/m.json" --nccl-graph "$d/m.json"
same "--timeline its --topo" "$d/m.json" "$ccsim" --topo "$d/m.json" -b 1M -e 1M --timeline "$d/m.json"
echo "table" >"$d/out.txt"
same "rings --nccl-graph and --output one file" "$d/out.txt" "$ccsim" rings --topo dgx1 --nccl-graph "$d/out.txt" --output "$d/out.txt"
err=$("$ccsim" rings --topo dgx1 --nccl-graph - 2>&1 >/dev/null); rc=$?
n=$((n+1)); { [ "$rc" -eq 2 ] && [[ "$err" == "ccsim: --nccl-graph: give a file of its own"* ]]; } ||
  fail "rings --nccl-graph - (the XML into the table on stdout): exit $rc, stderr '$err'"
only "m.json out.txt t.txt" "refused outputs"
rm -f "$d"/*

echo "output files: $((n-fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
