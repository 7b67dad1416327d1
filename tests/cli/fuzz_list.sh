#!/bin/bash
# The fuzz harnesses are listed in four places that must agree, or a harness is built but never run (or run but
# never built, which fails CI's `scripts/fuzz.sh 10`): the files tests/fuzz/fuzz_*.cpp, the targets of
# tests/fuzz/CMakeLists.txt, scripts/fuzz.sh's list and its usage text; and each harness must be seeded there.
set -u
src="$1"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
sorted() { tr ' ' '\n' | sed '/^$/d' | sort; }
files=$(cd "$src/tests/fuzz" && ls fuzz_*.cpp | sed 's/^fuzz_//; s/\.cpp$//' | sorted)
# CMake: the words of `set(fuzz_targets ...)` and of `foreach(t ...)` lists other than ${fuzz_targets}.
cmake=$(tr '\n' ' ' <"$src/tests/fuzz/CMakeLists.txt" |
        grep -oE 'set\(fuzz_targets [^)]*\)|foreach\(t [^$)][^)]*\)' | sed 's/^set(fuzz_targets //; s/^foreach(t //; s/)$//' | sorted)
script=$(tr '\n' ' ' <"$src/scripts/fuzz.sh" | grep -oE 'all=\([^)]*\)' | sed 's/^all=(//; s/)$//' | sorted)
usage=$(sed -n '/^# Targets:/,/^# [^a-z]/p' "$src/scripts/fuzz.sh" | sed 's/^# Targets://; s/^#//; s/\.$//' | grep -v '^ *Needs' | sorted)
[ -n "$files" ] || bad "no harness files found in $src/tests/fuzz"
[ "$files" = "$cmake" ] || bad "tests/fuzz/CMakeLists.txt builds $(echo $cmake), the files are $(echo $files)"
[ "$files" = "$script" ] || bad "scripts/fuzz.sh runs $(echo $script), the files are $(echo $files)"
[ "$files" = "$usage" ] || bad "scripts/fuzz.sh's usage names $(echo $usage), the files are $(echo $files)"
for t in $files; do
  grep -qE "^ *(seed|lines) $t( |$)" "$src/scripts/fuzz.sh" || bad "scripts/fuzz.sh seeds no corpus for $t"
done
echo "fuzz list: $(echo $files | wc -w) harnesses, $fails problem(s)"
[ "$fails" -eq 0 ]
