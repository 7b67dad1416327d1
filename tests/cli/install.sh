#!/bin/bash
# `cmake --install` into a fresh prefix: the binary runs from there (moved, too) on the installed data with
# nothing pointing back at the source tree; find_package(ccsim) builds tests/consumer, whose prediction
# matches the installed binary's; the installed Python module imports and finds the same data.
# Usage: install.sh SOURCE_DIR BUILD_DIR [SANITIZED]
#   SANITIZED=1 (ASan/UBSan/fuzz trees): no consumer project (its link would need the sanitizer runtimes,
#   which the exported targets do not carry; the optimised build checks it).
set -euo pipefail
src=$(cd "$1" && pwd -P); build=$(cd "$2" && pwd -P); sanitized=${3:-0}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "install.sh: $*" >&2; exit 1; }
unset CCSIM_DATA_DIR PYTHONPATH

p=$tmp/prefix
cmake --install "$build" --prefix "$p" >/dev/null
for f in bin/ccsim share/ccsim/topologies/dgx1.json share/ccsim/models/nccl.json share/ccsim/models/gpus.json \
         share/ccsim/scenarios/lm300m_dgx1.json share/ccsim/scripts/plot_compare.py \
         include/ccsim/sim/metrics/sweep.hpp include/ccsim/sim/core/error.hpp include/ccsim/sim/model/nccl/tables.hpp; do
  [ -e "$p/$f" ] || fail "$f not installed"
done
[ -z "$(find "$p/include" -path '*/sim/cli*' -print -quit)" ] || fail "the CLI's private headers were installed"
libdir=$(dirname "$(find "$p" -name libccsim_core.a -print -quit)")
[ -f "$libdir/cmake/ccsim/ccsimConfig.cmake" ] && [ -f "$libdir/cmake/ccsim/ccsimConfigVersion.cmake" ] \
  || fail "no ccsimConfig.cmake/ccsimConfigVersion.cmake beside the libraries"
# Nothing installed names the source or build tree (the build tree's share/ccsim link is how a build-tree
# binary finds the sources; an installed one must not need either). Debug information (a RelWithDebInfo
# tree) names the sources by design, so binaries are searched without it; in an ASan/UBSan tree the
# sanitizers' own diagnostics data names every source file too, so there only non-binary files are searched.
while IFS= read -r -d '' f; do
  look=$f
  if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "177ELF" ] || [ "$(head -c 7 "$f")" = '!<arch>' ]; then
    [ "$sanitized" = 1 ] && continue
    look=$tmp/stripped; objcopy --strip-debug "$f" "$look"
  fi
  if grep -qF -e "$src" -e "$build" "$look"; then fail "installed file names the source/build tree: $f"; fi
done < <(find "$p" -type f -print0)

# The binary reads the installed data: a topology that exists only there resolves, from another directory.
cp "$p/share/ccsim/topologies/dgx1.json" "$p/share/ccsim/topologies/only-installed.json"
cd "$tmp"
expected=$("$build/ccsim" --topo dgx1 -b 1M -e 4M --model nccl --format csv)
[ "$("$p/bin/ccsim" --topo only-installed -b 1M -e 4M --model nccl --format csv)" = "$expected" ] \
  || fail "installed binary's prediction differs from the build tree's"
# Relocatable: the whole prefix moved still works; CCSIM_DATA_DIR overrides where the data is read.
mv "$p" "$tmp/moved"; p=$tmp/moved
[ "$("$p/bin/ccsim" --topo only-installed -b 1M -e 4M --model nccl --format csv)" = "$expected" ] \
  || fail "the moved prefix's binary did not find its data"
msg=$(CCSIM_DATA_DIR="$tmp/nowhere" "$p/bin/ccsim" --topo dgx1 -b 1M -e 1M 2>&1 >/dev/null) && fail "CCSIM_DATA_DIR ignored"
[ "$(wc -l <<<"$msg")" = 1 ] || fail "bad CCSIM_DATA_DIR: not one line: $msg"
"$p/bin/ccsim" scenario "$p/share/ccsim/scenarios/lm300m_dgx1.json" >/dev/null || fail "installed scenario did not run"
# A build with MPI installs the module `mpirun ccsim sweep` dlopens, and the moved binary finds it.
if [ -f "$build/ccsim_sweep_mpi.so" ]; then
  [ -n "$(find "$p" -path '*/ccsim/ccsim_sweep_mpi.so' -print -quit)" ] || fail "ccsim_sweep_mpi.so not installed"
  if command -v mpirun >/dev/null; then
    echo '{"points": [{"topo": "dgx1", "bytes": "1M"}, {"topo": "dgx1", "bytes": "4M"}]}' >"$tmp/plan.json"
    ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe -np 2 "$p/bin/ccsim" sweep "$tmp/plan.json" \
      --stats -o "$tmp/mpi.csv" 2>"$tmp/stats" || fail "installed mpirun -np 2 ccsim sweep failed: $(cat "$tmp/stats")"
    grep -q 'x 2 rank(s)' "$tmp/stats" || fail "installed sweep did not run on 2 ranks: $(cat "$tmp/stats")"
  fi
fi

# A consumer project: find_package(ccsim) + ccsim::ccsim, built and run against the moved prefix.
if [ "$sanitized" = 1 ]; then echo "install.sh: sanitized tree, consumer project not built"; fi
[ "$sanitized" = 1 ] || {
launcher=(); command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/tests/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$p" \
  "${launcher[@]}" >/dev/null || fail "consumer project did not configure against the install"
cmake --build "$tmp/consumer" >/dev/null || fail "consumer project did not build against the install"
[ "$(cat "$tmp/consumer/data_dir.txt")" = "$p/share/ccsim" ] || fail "ccsim_DATA_DIR is $(cat "$tmp/consumer/data_dir.txt")"
got=$(CCSIM_DATA_DIR="$p/share/ccsim" "$tmp/consumer/ring_on_dgx1")
# size,count,type,redop,root,time_us,algbw,busbw from the CLI for the same ring and size
want=$("$p/bin/ccsim" --topo dgx1 --ring 0,1,2,3,4,5,6,7 -b 1M -e 1M --format csv | awk -F, 'NR==2 {print $1 "," $6 "," $8}')
[ "$got" = "$want" ] || fail "consumer printed '$got', the CLI '$want'"
# Outside the prefix and without the variable, the library says so in one line instead of guessing.
if msg=$("$tmp/consumer/ring_on_dgx1" 2>&1); then fail "consumer ran without finding its data"; fi
grep -q "CCSIM_DATA_DIR" <<<"$msg" || fail "consumer's error does not name CCSIM_DATA_DIR: $msg"
}

# The Python module, when it was built: imports from the prefix and reads the prefix's data.
if [ -d "$build/python/ccsim" ]; then
  pkg=$(dirname "$(find "$p" -name __init__.py -path '*/ccsim/*' -print -quit)")
  [ -n "$pkg" ] && [ "$pkg" != . ] || fail "Python package not installed"
  out=$(cd "$tmp" && PYTHONPATH=$(dirname "$pkg") /usr/bin/python3 -c \
    'import ccsim; print(ccsim.data_dir()); print(ccsim.predict("only-installed", sizes="1M").topology)')
  [ "$out" = "$p/share/ccsim"$'\n'"dgx1-v100" ] || fail "installed Python module: $out"
fi
echo "install.sh: ok"
