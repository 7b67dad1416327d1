#!/usr/bin/python3
"""A Gantt picture of a ccsim --timeline trace, drawn locally (no browser): one row per GPU showing
its sends, and one row per directed link showing which message held it, coloured by ring. Writes PNG
and SVG. Needs Debian's python3-matplotlib.

  build/ccsim --topo dgx1 -b 1M -e 1M --timeline run.json
  scripts/plot_timeline.py run.json -o docs/timeline
"""
import argparse
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from one_line_errors import Parser, on_signals, reading, run, save_figures  # noqa: E402

on_signals("plot_timeline")  # before matplotlib's slow import: an interrupted run is one line and leaves no file

try:
    import matplotlib
except ImportError:  # one line saying what to install, not a traceback
    sys.exit(f"plot_timeline.py: needs matplotlib, which {sys.executable} lacks: apt-get install python3-matplotlib "
             "(scripts/setup.sh does), then run the script itself or /usr/bin/python3 on it")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402


def main():
    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", help="file written by ccsim --timeline")
    ap.add_argument("-o", "--output", default="timeline", help="output path without extension (writes .png and .svg)")
    ap.add_argument("--links", type=int, default=16, help="show at most this many links, busiest first")
    args = ap.parse_args()

    with open(reading(args.trace)) as f:
        trace = json.load(f)
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        sys.exit(f"plot_timeline: {args.trace}: no traceEvents (expected ccsim --timeline output)")
    meta = trace.get("otherData", {})
    pname, tname = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            pname[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]

    # Rows: GPUs (their send slices, all rings together) and links (their holding slices).
    gpu_rows = defaultdict(list)
    link_rows = defaultdict(list)
    for e in events:
        if e.get("ph") != "X":
            continue
        job = e.get("args", {}).get("job")
        if e["cat"] == "send":
            name = tname.get((e["pid"], e["tid"]), "")
            job = int(name.split()[1]) if name.startswith("ring ") else 0
            gpu_rows[pname[e["pid"]].split(" (")[0]].append((e["ts"], e["dur"], job))
        elif e["cat"] == "link":
            link_rows[tname[(e["pid"], e["tid"])].split(" ")[0]].append((e["ts"], e["dur"], job or 0))
    if not gpu_rows:
        sys.exit(f"plot_timeline: {args.trace}: no send slices to draw")
    busiest = sorted(link_rows, key=lambda k: -sum(d for _, d, _ in link_rows[k]))[: args.links]
    busiest.sort()
    gpus = sorted(gpu_rows, key=lambda s: int(s.split()[-1]) if s.split()[-1].isdigit() else s)
    rows = [("GPU", g, gpu_rows[g]) for g in gpus] + [("link", l, link_rows[l]) for l in busiest]

    cmap = plt.get_cmap("tab10")
    fig_h = 1.2 + 0.28 * len(rows)
    fig, ax = plt.subplots(figsize=(11, fig_h), dpi=110)
    jobs = sorted({job for _, _, slices in rows for _, _, job in slices})
    lane = {j: i for i, j in enumerate(jobs)}
    for y, (kind, _, slices) in enumerate(rows):
        for ts, dur, job in slices:
            # A GPU sends on every ring at once: one thin lane per ring so they do not hide each other.
            h = 0.8 / len(jobs) if kind == "GPU" else 0.8
            y0 = y - 0.4 + (lane[job] * h if kind == "GPU" else 0)
            ax.broken_barh([(ts, dur)], (y0, h), facecolors=cmap(job % 10), edgecolor="white", linewidth=0.3)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{label} sends" + (" (one lane per ring)" if len(jobs) > 1 and i == 0 else "") if kind == "GPU" else label for i, (kind, label, _) in enumerate(rows)], fontsize=8)
    ax.invert_yaxis()
    if busiest:
        ax.axhline(len(gpus) - 0.5, color="black", linewidth=0.8)
    ax.set_xlim(0, float(meta.get("makespan_us", 0)) or None)
    ax.set_xlabel("time (µs)")
    title = f"{meta.get('op', '')} {meta.get('algo', '')} on {meta.get('topology', '')}, {meta.get('size_bytes', '?')} B, model {meta.get('model', '')}"
    ax.set_title(title + (f"  (busiest {len(busiest)} of {len(link_rows)} links)" if len(link_rows) > len(busiest) else ""))
    if len(jobs) > 1:
        ax.legend(handles=[Patch(color=cmap(j % 10), label=f"ring {j}") for j in jobs], loc="upper left",
                  bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    base = os.path.splitext(args.output)[0] if args.output.endswith((".png", ".svg")) else args.output
    save_figures(fig, [f"{base}.png", f"{base}.svg"])
    for ext in ("png", "svg"):
        print(f"wrote {base}.{ext}")


if __name__ == "__main__":
    run("plot_timeline", main)
