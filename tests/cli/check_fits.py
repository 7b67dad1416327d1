#!/usr/bin/env python3
"""scripts/check_fits.py (the ctest fits_current) on a fit made here, fresh, by the current binary, and on
copies of it made stale by hand: a fresh fit is current; a parameter that moved after the fit, a recorded
prediction off by more than its 6-decimal rounding, or an edited measured time is stale ("run
scripts/refit.sh", exit 1); a difference within the rounding is not; an unreadable file is one line, exit 2.
Independent of the fits shipped in models/ (those are fits_current's business).
Usage: check_fits.py CCSIM SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

ccsim, src = os.path.abspath(sys.argv[1]), sys.argv[2]
os.chdir(src)  # the recorded commands name traces relative to the source tree
tmp = tempfile.mkdtemp(prefix="check_fits_test.")
failures = []
trace = "models/traces/rtx2080ti-2gpu-nvlinkbridge-allgather-partial-nccltests44.txt"  # 13 rows: a fast fit
fresh = os.path.join(tmp, "fresh.json")
r = subprocess.run([ccsim, "calibrate", "--model", "nccl", "--topo", "rtx2080ti-nvlink-2gpu", "--trace", trace,
                    "--gpu-arch", "volta", "-o", fresh], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(f"FAIL: calibrate: {r.stderr.strip()}")
doc = json.load(open(fresh))


def check_fits(doc_or_text, name):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text))
    r = subprocess.run([sys.executable, "scripts/check_fits.py", "--ccsim", ccsim, "--no-index", path],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(what, got, rc, needle):
    code, out = got
    if code != rc or needle not in out:
        failures.append(f"{what}: rc {code} (want {rc}), output {out!r} (want {needle!r})")


expect("fresh fit", check_fits(doc, "fresh.json"), 0, "1 fits current")

moved = json.loads(json.dumps(doc))
moved["params"]["launch_us"] += 5.0  # the model or preset changed under the fit: its predictions move
expect("moved parameter", check_fits(moved, "moved.json"), 1, "run scripts/refit.sh")

off = json.loads(json.dumps(doc))
off["residuals"][3]["predicted_us"] += 0.001  # 1000x the recorded rounding
expect("recorded prediction off", check_fits(off, "off.json"), 1, "the fit recorded")

within = json.loads(json.dumps(doc))
within["residuals"][3]["predicted_us"] = round(within["residuals"][3]["predicted_us"], 6) + 4e-7  # inside rounding
expect("difference within rounding", check_fits(within, "within.json"), 0, "fits current")

edited = json.loads(json.dumps(doc))
edited["residuals"][0]["measured_us"] *= 1.1  # the trace is not the one fitted
expect("edited trace", check_fits(edited, "edited.json"), 1, "the trace changed")

expect("unreadable file", check_fits("{not json", "bad.json"), 2, "bad.json")
code, out = check_fits("{not json", "bad.json")
if len(out.strip().splitlines()) != 1:
    failures.append(f"unreadable file: want one line, got {out!r}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
