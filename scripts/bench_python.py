#!/usr/bin/python3
"""The same prediction from the binary (a subprocess) and from the Python module, timed alternately, then
once more in a second thread while this one keeps running Python (is the GIL released?). docs/python.md
quotes a run.

  PYTHONPATH=build/python CCSIM=build/ccsim scripts/bench_python.py TOPOLOGY SIZE [REPS]
  e.g. scripts/bench_python.py crossbar:ranks=8192,bw=25GB/s,alpha=1us 64M"""
import os
import subprocess
import sys
import threading
import time

import ccsim

spec, size = sys.argv[1], sys.argv[2]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 2
binary = os.environ.get("CCSIM", "build/ccsim")


def from_cli():
    start = time.perf_counter()
    subprocess.run([binary, "--topo", spec, "-b", size, "-e", size, "--format", "json"], check=True, capture_output=True)
    return time.perf_counter() - start


def from_python():
    start = time.perf_counter()
    rows = ccsim.predict(spec, sizes=size)
    return time.perf_counter() - start, rows


for i in range(reps):
    c = from_cli()
    p, rows = from_python()
    print(f"rep {i}: CLI {c:.2f} s, Python {p:.2f} s, ratio {p / c:.3f}  (busbw {rows[0].busbw_GBps:.2f} GB/s)", flush=True)

took = {}
worker = threading.Thread(target=lambda: took.setdefault("s", from_python()[0]))
ticks = []
worker.start()
while worker.is_alive():
    ticks.append(time.perf_counter())
    time.sleep(0.001)
worker.join()
gaps = [b - a for a, b in zip(ticks, ticks[1:])] or [0.0]
print(f"main thread during a {took['s']:.2f} s predict in another thread: {len(ticks)} iterations of a 1 ms sleep loop, "
      f"longest pause {max(gaps) * 1000:.1f} ms")
