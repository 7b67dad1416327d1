#!/usr/bin/python3
"""Plots a `ccsim sweep` CSV table: busbw against size, one panel per machine, one line per configuration
(algorithm, and the ring order when the plan sets one), the best configuration at each size marked.
With --best, also prints which configuration wins at each size on each machine (a Markdown table).

  scripts/plot_sweep_table.py results.csv -o sweep.png [--best]"""
import argparse, csv, math
from collections import defaultdict

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("table", help="CSV written by ccsim sweep")
ap.add_argument("-o", "--output", default="sweep", help="PNG to write (.png added when missing)")
ap.add_argument("--best", action="store_true", help="print the best configuration per machine and size")
args = ap.parse_args()


def human(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n // div} {unit}"
    return f"{n} B"


rows = [r for r in csv.DictReader(open(args.table)) if not r["error"] and r["size"]]  # collectives only
if not rows:
    raise SystemExit(f"{args.table}: no collective rows without an error")
series = defaultdict(lambda: defaultdict(list))  # machine -> config -> [(size, busbw)]
for r in rows:
    machine = r.get("topo") or r["topology"]
    order = r.get("ring") or ""
    config = r["algorithm"] + (f" order {order}" if order else " (packed rings)" if r["algorithm"] == "ring" else "")
    series[machine][config].append((int(r["size"]), float(r["busbw_GBps"])))

best = {}  # machine -> size -> (busbw, config)
for machine, configs in series.items():
    for config, pts in configs.items():
        for size, bw in pts:
            if bw > best.setdefault(machine, {}).get(size, (-1, ""))[0]:
                best[machine][size] = (bw, config)

if args.best:
    print("| machine | size | best configuration | busbw (GB/s) |")
    print("|---|---|---|---|")
    for machine in series:
        for size in sorted(best[machine]):
            bw, config = best[machine][size]
            print(f"| {machine} | {human(size)} | {config} | {bw:.2f} |")

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, len(series), figsize=(5.2 * len(series), 4.4), sharey=False, squeeze=False)
for ax, (machine, configs) in zip(axes[0], series.items()):
    for config, pts in sorted(configs.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=config)
    winners = sorted(best[machine].items())
    ax.scatter([s for s, _ in winners], [b for _, (b, _) in winners], s=90, facecolors="none", edgecolors="black",
               zorder=5, label="best at this size")
    ax.set_xscale("log", base=2)
    sizes = sorted({s for pts in configs.values() for s, _ in pts})
    ax.set_xticks(sizes)
    ax.set_xticklabels([human(s) for s in sizes], rotation=45, fontsize=7)
    ax.set_title(machine)
    ax.set_xlabel("message size")
    ax.set_ylabel("busbw (GB/s)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
fig.suptitle("ccsim sweep: allreduce busbw per algorithm and ring order")
fig.tight_layout()
out = args.output if args.output.endswith(".png") else args.output + ".png"
fig.savefig(out, dpi=100)
print(f"Plot: {out}")
