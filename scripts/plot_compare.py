#!/usr/bin/python3
"""Draw measured vs predicted busbw over message size from `ccsim compare --format json` output.

Usage: plot_compare.py COMPARE.json OUT.png   (ccsim compare --plot OUT.png calls this)
Needs Debian's python3-matplotlib (scripts/setup.sh installs it).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from one_line_errors import on_signals, reading, run, save_figures  # noqa: E402

on_signals("plot_compare")  # before matplotlib's slow import: an interrupted run is one line and leaves no file

try:
    import matplotlib
except ImportError:  # one line saying what to install, not a traceback
    sys.exit(f"plot_compare.py: needs matplotlib, which {sys.executable} lacks: apt-get install python3-matplotlib "
             "(scripts/setup.sh does), then run the script itself or /usr/bin/python3 on it")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402


def human(b, _pos=None):
    for unit, k in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= k:
            v = b / k
            return f"{v:g}{unit}"
    return f"{b:g}"


def main():
    for a in sys.argv[1:]:
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return
        if a.startswith("-") and a != "-":  # a flag is not a file name (this script takes none)
            sys.exit(f"plot_compare: {a}: no such flag (usage: plot_compare.py COMPARE.json OUT.png)")
    if len(sys.argv) != 3:
        sys.exit("usage: plot_compare.py COMPARE.json OUT.png")
    with open(reading(sys.argv[1])) as f:
        text = f.read()
    if text.startswith("size,count,measured_time_us"):  # compare --format csv: rows without the run's header
        sys.exit(f"plot_compare: {sys.argv[1]}: `ccsim compare --format csv` output, which has no run header (op, ranks, "
                 "topology, model): give compare's --format json output, or run compare with --plot OUT.png")
    j = json.loads(text)
    if not isinstance(j, dict) or not isinstance(j.get("rows"), list) or "summary" not in j:
        sys.exit(f"plot_compare: {sys.argv[1]}: not `ccsim compare --format json` output (no 'rows' and 'summary')")
    rows = j["rows"]
    if not rows:
        sys.exit(f"plot_compare: {sys.argv[1]}: no rows to plot")
    size = [r["size"] for r in rows]
    meas = [r["measured_busbw"] for r in rows]
    pred = [r["predicted_busbw"] for r in rows]
    s = j["summary"]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(9, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot(size, meas, "o-", color="black", label=f"measured ({j.get('measured_column', 'out-of-place')})")
    ax.plot(size, pred, "s--", color="tab:blue", label=f"ccsim, model {j['model']}" + (f" + {j['params']}" if j.get("params") else ""))
    # Mark NCCL's protocol choice when the model reports one.
    protos = sorted({r.get("proto") for r in rows if r.get("proto")})
    markers = {"LL": "v", "LL128": "^", "Simple": "D"}
    for p in protos:
        xs = [r["size"] for r in rows if r.get("proto") == p]
        ys = [r["predicted_busbw"] for r in rows if r.get("proto") == p]
        ax.scatter(xs, ys, marker=markers.get(p, "x"), s=60, facecolors="none", edgecolors="tab:orange", label=f"NCCL choice {p}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")  # small sizes are latency-bound: a linear axis would hide them
    ax.set_ylabel("busbw (GB/s, log scale)")
    med = s.get("median_abs_err_pct_ge_1MiB")
    med_all = s.get("median_abs_err_pct_all")
    title = f"{j['op']} on {j['ranks']} ranks - {j['trace'].split('/')[-1]}\n"
    title += f"topology {j['topology']}; median |busbw err| "
    title += (f"{med:.1f}% (>= 1 MiB), " if med is not None else "- (>= 1 MiB), ")
    title += f"{med_all:.1f}% (all)"
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    err = [r["err_pct"] for r in rows]
    ax2.axhline(0, color="black", lw=0.8)
    for band, style in ((5, ":"), (15, "--")):  # the validation targets
        ax2.axhline(band, color="grey", lw=0.8, ls=style)
        ax2.axhline(-band, color="grey", lw=0.8, ls=style)
    ax2.bar(size, err, width=[x * 0.4 for x in size], color=["tab:red" if abs(e) > 15 else "tab:green" for e in err])
    ax2.set_ylabel("busbw err %")
    ax2.set_xlabel("message size (nccl-tests size column)")
    ax2.xaxis.set_major_formatter(FuncFormatter(human))
    ax2.grid(True, which="both", alpha=0.3)
    lim = max(20, min(100, max(abs(e) for e in err) * 1.1))
    ax2.set_ylim(-lim, lim)
    fig.tight_layout()
    save_figures(fig, [sys.argv[2]], dpi=110)


if __name__ == "__main__":
    run("plot_compare", main)
