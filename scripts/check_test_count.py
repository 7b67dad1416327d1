#!/usr/bin/python3
"""Checks that ctest really runs every doctest case: each case `ccsim_tests --list-test-cases` lists must be
selected by exactly one ctest entry, and each doctest-discovered ctest entry must select exactly one case.
doctest_discover_tests turns a case name holding `;` into a CMake list, so its ctest entry matches no case
and passes without running anything; such names are refused outright.

  scripts/check_test_count.py BUILD_DIR TEST_BINARY [CTEST]
Exit status 1 (with the offending names) on any mismatch."""
import json, subprocess, sys

build_dir, binary = sys.argv[1], sys.argv[2]
ctest = sys.argv[3] if len(sys.argv) > 3 else "ctest"


def listed(args):
    """Case names the binary selects with these arguments (doctest prints them between banner lines)."""
    out = subprocess.run([binary, *args, "--list-test-cases"], capture_output=True, text=True, check=True).stdout
    return [l for l in out.splitlines() if l and not l.startswith("[doctest]") and set(l) != {"="}]


all_cases = listed([])
problems = [f"case name holds ';' (ctest would never run it): {n}" for n in all_cases if ";" in n]
dupes = {n for n in all_cases if all_cases.count(n) > 1}
problems += [f"case name used twice: {n}" for n in sorted(dupes)]

tests = json.loads(subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1"],
                                  capture_output=True, text=True, check=True).stdout)["tests"]
ran = []
entries = 0
for t in tests:
    cmd = t.get("command", [])
    if not cmd or cmd[0] != binary:
        continue  # a CLI or script test, not a doctest case
    entries += 1
    selected = listed(cmd[1:])
    if len(selected) != 1:
        problems.append(f"ctest entry {t['name']!r} runs {len(selected)} cases: {selected}")
    ran += selected

never = sorted(set(all_cases) - set(ran))
problems += [f"never run by ctest: {n}" for n in never]
print(f"{len(all_cases)} doctest cases listed, {entries} ctest entries, {len(set(ran))} distinct cases run")
for p in problems:
    print(p, file=sys.stderr)
sys.exit(1 if problems or entries != len(all_cases) else 0)
