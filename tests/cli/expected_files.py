"""What tests/cli/wild_traces.py and tests/cli/option_traces.py share: running ccsim on one file, the refusal of a
--run beyond a file's runs, and the driver that checks every file of a folder against the script's EXPECTED table
(a file without expected values, or an expected file missing, is a failure: no file goes unchecked)."""
import os
import subprocess


def run(ccsim, *args):
    p = subprocess.run([ccsim, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def refused_in_one_line(ccsim, base, name, want):
    """Failure messages unless ccsim refuses the file in one stderr line naming it and saying `want`, exit 2,
    nothing on stdout."""
    rc, out, err = run(ccsim, *base)
    lines = err.strip().splitlines()
    if rc != 2 or len(lines) != 1 or out or name not in lines[0] or want not in lines[0]:
        return [f"{name}: want a one-line refusal with '{want}', got rc={rc} stdout={len(out)}B stderr={err.strip()!r}"]
    return []


def refuses_run_beyond(ccsim, base, name, runs):
    """Failure messages unless `--run runs+1` is refused (exit 2) as beyond the file's runs."""
    rc, out, err = run(ccsim, *base, "--run", str(runs + 1))
    if rc != 2 or f"it holds {runs}: --run " not in err:
        return [f"{name}: --run {runs + 1} should be refused as beyond its {runs} run(s): rc={rc} {err.strip()!r}"]
    return []


def check_folder(ccsim, data, suffixes, expected, check_file, script, label):
    """Runs check_file(ccsim, path, *expected[file]) on every file of `data` ending in `suffixes`; prints the
    failures and a summary; returns the exit status."""
    files = sorted(f for f in os.listdir(data) if f.endswith(suffixes))
    fails = [f"{f}: no expected values in {script}" for f in files if f not in expected]
    fails += [f"{f}: listed but missing from {data}" for f in expected if f not in files]
    for f in files:
        if f in expected:
            fails += check_file(ccsim, os.path.join(data, f), *expected[f])
    for msg in fails:
        print("FAIL:", msg)
    print(f"{label}: {len(files)} files, {len(fails)} failures")
    return 1 if fails else 0
