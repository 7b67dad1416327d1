#!/bin/bash
# `mpirun -np 2 ccsim sweep` writes the file a single process writes, byte for byte (CSV and JSON lines),
# with rank 1 given points by rank 0. Exits 77 (skipped) when ccsim was built without MPI or mpirun is absent.
set -u
ccsim="$1"; with_mpi="$2"; sanitized="${3:-0}"
# Open MPI's own start-up allocations (libmpi, its dlopened plugins) are never freed; LeakSanitizer in an
# ASan tree reports them as leaks of ccsim's process. Leak checking is off for the mpirun runs there only.
[ "$sanitized" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if [ "$with_mpi" != 1 ]; then echo "skipped: ccsim built without MPI (install libopenmpi-dev openmpi-bin, reconfigure)"; exit 77; fi
if ! command -v mpirun >/dev/null; then echo "skipped: mpirun not installed (openmpi-bin)"; exit 77; fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat >plan.json <<'P'
{
  "defaults": {"b": "1K", "e": "16M", "f": 4},
  "grid": {"topo": ["dgx1", "hgx-h100"], "algo": ["ring", "recursive_doubling", "nope"], "semantics": ["gpu", "mpi"]},
  "points": [{"topo": "hgx-h100", "model": "nccl", "bytes": "1G"}, {"topo": "dgx1", "p2p": "off", "bytes": "4M"}]
}
P
mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)
for f in csv jsonl; do
  "$ccsim" sweep plan.json --format $f -j 1 -o one.$f || fail "single process ($f) exited $?"
  "${mpi[@]}" "$ccsim" sweep plan.json --format $f --stats -o two.$f 2>stats || fail "mpirun -np 2 ($f) exited $?: $(cat stats)"
  cmp -s one.$f two.$f || fail "$f: mpirun -np 2 table differs from the single-process one"
  grep -q 'x 2 rank(s)' stats || fail "$f: the sweep did not run on 2 ranks: $(cat stats)"
done
[ "$(tail -n +2 one.csv | wc -l)" -gt 20 ] || fail "too few rows: $(wc -l <one.csv)"
# Resume under MPI: a finished table is read back by rank 0 and only the 4 'nope' points, which ended in an
# error, run again (an error may have been mended since); the table is the same.
"${mpi[@]}" "$ccsim" sweep plan.json --stats -o one.csv 2>stats || fail "resume exited $?"
grep -q '^sweep: 4 points run (10 resumed)' stats || fail "resume under MPI: $(cat stats)"
cmp -s one.csv two.csv || fail "the resumed table differs from the one written at once"
# Under a launcher without its MPI module, one line naming the module and exit 2 (N one-process sweeps
# would each write the whole table). A copy of the binary alone has no module beside or below it.
mkdir lone && cp "$ccsim" lone/
CCSIM_DATA_DIR=$(dirname "$ccsim")/share/ccsim PMI_SIZE=2 lone/"$(basename "$ccsim")" sweep plan.json -o lone.csv 2>err
rc=$?
[ $rc = 2 ] || fail "missing MPI module: exit $rc, not 2"
[ "$(wc -l <err)" = 1 ] && grep -Eq 'ccsim_sweep_mpi\.so|ccsim-mpi' err || fail "missing MPI module: not one line naming it: $(cat err)"
[ ! -e lone.csv ] || fail "missing MPI module: an output file was written"
[ $fails -eq 0 ] && echo "sweep_mpi: all checks passed"
exit $((fails > 0))
