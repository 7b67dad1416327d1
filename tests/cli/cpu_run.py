#!/usr/bin/env python3
"""scripts/cpu_run.py (the benchmarks' measure) against facts known without it: a grandchild's CPU is counted,
a small program's peak RSS is its own (not this Python's), a big allocation shows, a timeout ends the whole
tree with rc 124, bad input exits 2. Usage: cpu_run.py SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

script = os.path.join(sys.argv[1], "scripts", "cpu_run.py")
tmp = tempfile.mkdtemp(prefix="cpu_run_test.")
out = os.path.join(tmp, "out")
failures = []


def run(*args):
    r = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    return r.returncode, r.stdout.split(), r.stderr


def check(what, ok):
    if not ok:
        failures.append(what)


# A shell whose child burns CPU and reports its own user+sys: cpu_run counts the grandchild too.
burn = ("import resource\nx = 0\nfor i in range(3_000_000): x += i\n"
        "r = resource.getrusage(resource.RUSAGE_SELF)\nprint(r.ru_utime + r.ru_stime)")
rc, f, _ = run("60", out, "sh", "-c", f"{sys.executable} -c '{burn}'; exit 0")
own = float(open(out).read().split()[-1])
check(f"grandchild CPU counted: {f} vs its own {own}", rc == 0 and f[2] == "0" and float(f[0]) >= own)

# /bin/true's peak RSS is a few MiB; Python (this test, and cpu_run itself) holds more than 8 MiB resident.
rc, f, _ = run("60", out, "true")
check(f"small program's own peak RSS: {f}", rc == 0 and float(f[1]) < 5)

# A child that touches 200 MB shows at least that much.
rc, f, _ = run("60", out, sys.executable, "-c", "x = bytearray(200_000_000)")
check(f"peak RSS of a 200 MB allocation: {f}", rc == 0 and float(f[1]) >= 190)

# The exit code comes through.
rc, f, _ = run("60", out, "sh", "-c", "exit 3")
check(f"exit code 3: {f}", rc == 0 and f[2] == "3")

# Timeout: the shell and its background child both end; rc 124.
marker = os.path.join(tmp, "alive")
rc, f, _ = run("0.5", out, "sh", "-c", f"(sleep 30; touch {marker}) & sleep 30")
check(f"timeout gives rc 124 and ends within seconds: {f}", rc == 0 and f[2] == "124" and float(f[3]) < 20)
ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
check("no process of the timed-out tree left", f"touch {marker}" not in ps)

# Bad input: one line, exit 2.
for args in (["0", out, "true"], ["x", out, "true"], ["5", out]):
    rc, _, err = run(*args)
    check(f"bad input {args}: rc {rc}, {err!r}", rc == 2 and len(err.strip().splitlines()) == 1)

for what in failures:
    print("FAIL:", what)
sys.exit(1 if failures else 0)
