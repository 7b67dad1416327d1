#!/usr/bin/python3
"""Plots a `ccsim sweep` CSV table: busbw against size, one panel per machine, one line per configuration
(algorithm, the ring order when the plan sets one, and any other plan parameter that varies), the best configuration
at each size marked; with several ops, one panel per machine and op (their busbw factors differ).
With --best, also prints which configuration wins at each size on each machine (a Markdown table).

  scripts/plot_sweep_table.py results.csv -o sweep.png [--best]"""
import csv, math, os, sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from one_line_errors import Parser, on_signals, reading, run, save_figures  # noqa: E402

on_signals("plot_sweep_table")  # before matplotlib's slow import: an interrupted run is one line and leaves no file

ap = Parser(description=__doc__.splitlines()[0])
ap.add_argument("table", help="CSV written by ccsim sweep")
ap.add_argument("-o", "--output", default="sweep", help="picture to write: .png, .svg or .pdf (.png added when none of them ends it)")
ap.add_argument("--best", action="store_true", help="print the best configuration per machine and size")
args = ap.parse_args()


def human(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:g} {unit}"  # 1536 KiB is 1.5 MiB, not "1 MiB"
    return f"{n} B"


def main():
    """Reads the table, prints --best, draws the panels (run below turns bad input into one line, exit 2)."""
    reader = csv.DictReader(open(reading(args.table)))
    if not {"point", "error", "size"} <= set(reader.fieldnames or []):
        hint = " (a `ccsim compare` table: scripts/plot_compare.py draws compare's --format json)" if "measured_busbw_GBps" in (
            reader.fieldnames or []) else " (single runs' --format csv/json: scripts/plot_sweep.py)"
        raise SystemExit(f"plot_sweep_table: {args.table}: not a `ccsim sweep` table, no 'point' and 'error' columns{hint}")
    rows = [r for r in reader if not r["error"] and r["size"]]  # collectives only
    if not rows:
        raise SystemExit(f"plot_sweep_table: {args.table}: no collective rows without an error")
    # The plan's own columns (between "point" and "topology") that differ between rows, besides the machine, the
    # sizes and the algorithm and ring named below, tell configurations apart (model, nccl-algo, p2p, ...): without
    # them two points would share one line, zigzagging between their values at each size.
    fields = reader.fieldnames
    plan_cols = fields[fields.index("point") + 1:fields.index("topology")]
    shown = {"topo", "op", "algo", "ring", "b", "e", "f", "i", "bytes", "minbytes", "maxbytes", "stepfactor", "stepbytes"}
    varying = [c for c in plan_cols if c not in shown and len({r[c] for r in rows}) > 1]
    # busbw of different collectives is not comparable (nccl-tests' factors differ): one panel per machine and op.
    ops = sorted({r.get("op") or "allreduce" for r in rows})
    series = defaultdict(lambda: defaultdict(list))  # panel (machine[, op]) -> config -> [(size, busbw)]
    for r in rows:
        machine = r.get("topo") or r["topology"]
        panel = f"{machine} {r.get('op') or 'allreduce'}" if len(ops) > 1 else machine
        order = r.get("ring") or ""
        config = r["algorithm"] + (f" order {order}" if order else " (packed rings)" if r["algorithm"] == "ring" else "")
        config += "".join(f" {c}={r[c]}" for c in varying if r[c])
        series[panel][config].append((int(r["size"]), float(r["busbw_GBps"])))

    best = {}  # panel -> size -> (busbw, config)
    for machine, configs in series.items():
        for config, pts in configs.items():
            for size, bw in pts:
                if bw > best.setdefault(machine, {}).get(size, (-1, ""))[0]:
                    best[machine][size] = (bw, config)

    if args.best:
        print(f"| machine{' and op' if len(ops) > 1 else ''} | size | best configuration | busbw (GB/s) |")
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
    fig.suptitle(f"ccsim sweep: {', '.join(ops)} busbw per algorithm and ring order")
    fig.tight_layout()
    out = args.output if args.output.lower().endswith((".png", ".svg", ".pdf")) else args.output + ".png"
    save_figures(fig, [out], dpi=100)
    print(f"Plot: {out}")


if __name__ == "__main__":
    run("plot_sweep_table", main)
