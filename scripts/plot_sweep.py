#!/usr/bin/python3
"""Bus bandwidth against message size for several ccsim runs on one chart, as PNG and SVG.

Each input is a file written by `ccsim ... --format json` (or `--format csv`), optionally prefixed
with a legend label: `"6 rings=dgx1.json"`. JSON files carry their own description, used as the
label when none is given. Needs Debian's python3-matplotlib (scripts/setup.sh installs it).

  build/ccsim --topo dgx1 -b 8 -e 1G --format json > rings6.json
  build/ccsim --topo dgx1 -b 8 -e 1G --ring 0,1,2,3,4,5,6,7 --format json > naive.json
  scripts/plot_sweep.py "6 packed rings=rings6.json" "rank order=naive.json" -o docs/sweep
"""
import argparse
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from one_line_errors import Parser, on_signals, reading, run, save_figures  # noqa: E402

on_signals("plot_sweep")  # before matplotlib's slow import: an interrupted run is one line and leaves no file

try:
    import matplotlib
except ImportError:  # one line saying what to install, not a traceback
    sys.exit(f"plot_sweep.py: needs matplotlib, which {sys.executable} lacks: apt-get install python3-matplotlib "
             "(scripts/setup.sh does), then run the script itself or /usr/bin/python3 on it")

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator  # noqa: E402

METRICS = {
    "busbw": ("busbw_GBps", "bus bandwidth (GB/s)"),
    "algbw": ("algbw_GBps", "algorithm bandwidth (GB/s)"),
    "time": ("time_us", "time (µs)"),
}


def size_label(b):
    """nccl-tests sizes are powers of two: 8 B, 1 KiB, 128 MiB ..."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            v = b / scale
            return f"{v:g} {unit}"
    return f"{b:g} B"


def default_label(j):
    """The run as its JSON header describes it. An imported file is named by the file: two `nvidia-smi topo -m`
    pastes of 8 GPUs are both "topo-m-8gpu". A model that picks the algorithm per size is named by the model."""
    topo, origin = j.get("topology", "?"), str(j.get("topology_origin", ""))
    if origin and not origin.startswith(("shipped", "generated")):
        topo = os.path.basename(origin)
    algo = str(j.get("algo", ""))
    if algo.startswith("chosen per size"):
        algo = "model " + (str(j.get("model", "")).split() or ["?"])[0]
    rings = len(j.get("placements", [])) or 1
    return f"{topo} {j.get('op', '')} {algo}" + (f", {rings} rings" if rings > 1 else "")


def load(spec):
    label, _, path = spec.rpartition("=") if "=" in spec else ("", "", spec)
    if not os.path.exists(path):
        sys.exit(f"plot_sweep: no such file: {path}")
    with open(reading(path)) as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        j = json.loads(text)
        rows = j.get("rows")
        if not isinstance(rows, list) or not rows:
            sys.exit(f"plot_sweep: {path}: no 'rows' (expected ccsim --format json output)")
        if "measured_busbw" in rows[0]:
            sys.exit(f"plot_sweep: {path}: `ccsim compare` output: draw it with scripts/plot_compare.py {path} OUT.png")
        if not label:
            label = default_label(j)
        return label, rows
    rows = list(csv.DictReader(text.splitlines()))
    if not rows or "size" not in rows[0]:
        sys.exit(f"plot_sweep: {path}: neither ccsim JSON nor ccsim CSV (no 'size' column)")
    if "measured_busbw_GBps" in rows[0]:
        sys.exit(f"plot_sweep: {path}: `ccsim compare` CSV: draw compare's --format json output with scripts/plot_compare.py")
    if "point" in rows[0]:
        sys.exit(f"plot_sweep: {path}: a `ccsim sweep` table: draw it with scripts/plot_sweep_table.py {path}")
    missing = [k for k in ("time_us", "algbw_GBps", "busbw_GBps") if k not in rows[0]]
    if missing:
        sys.exit(f"plot_sweep: {path}: no '{missing[0]}' column (expected ccsim --format csv output)")
    for r in rows:
        for k in ("size", "time_us", "algbw_GBps", "busbw_GBps"):
            r[k] = float(r[k])
    return label or os.path.splitext(os.path.basename(path))[0], rows


def main():
    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="[label=]file.json|file.csv")
    ap.add_argument("-o", "--output", default="sweep", help="output path without extension (writes .png and .svg)")
    ap.add_argument("--metric", choices=METRICS, default="busbw")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    key, ylabel = METRICS[args.metric]
    fig, ax = plt.subplots(figsize=(9, 5.2), dpi=110)
    markers = "os^Dv<>PX*"
    sizes = set()
    for i, spec in enumerate(args.inputs):
        label, rows = load(spec)
        # A size-0 row (`ccsim -b 0`) has no place on the log2 axis (it divided by zero): drawn without it.
        rows = [r for r in rows if float(r["size"]) > 0]
        if not rows:
            sys.exit(f"plot_sweep: {spec.rpartition('=')[2]}: no row of a size above 0 to draw on the log2 size axis")
        xs = [float(r["size"]) for r in rows]
        ys = [float(r[key]) for r in rows]
        sizes.update(xs)
        ax.plot(xs, ys, marker=markers[i % len(markers)], markersize=4, linewidth=1.6, label=label)

    ax.set_xscale("log", base=2)
    # One labelled tick every factor of 4 (or 16 on wide sweeps) so labels never collide.
    lo, hi = min(sizes), max(sizes)
    span = math.log2(hi / lo) if hi > lo else 1
    step = 2 if span <= 16 else 4
    ticks = [2.0**e for e in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1) if e % step == 0]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([size_label(t) for t in ticks], rotation=35, ha="right")
    ax.set_xlim(lo / 1.3, hi * 1.3)
    ax.set_xlabel("message size (bytes, log2 scale)")
    ax.set_ylabel(ylabel)
    if args.metric == "time":
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_title(args.title or f"ccsim prediction: {args.metric} vs size")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="best", frameon=False)
    fig.tight_layout()
    base = os.path.splitext(args.output)[0] if args.output.endswith((".png", ".svg")) else args.output
    save_figures(fig, [f"{base}.png", f"{base}.svg"])
    for ext in ("png", "svg"):
        print(f"wrote {base}.{ext}")


if __name__ == "__main__":
    run("plot_sweep", main)
