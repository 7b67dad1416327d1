#!/usr/bin/python3
"""docs/python.md's worked example: sweep allreduce on three machines with NCCL's model, plot busbw over
size, then pick a ring order for the DGX-1. Run from the source tree after building:

    PYTHONPATH=build/python python3 docs/examples/sweep_topologies.py sweep.png
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed: the plot goes to a PNG
import matplotlib.pyplot as plt

import ccsim

png = sys.argv[1] if len(sys.argv) > 1 else "sweep.png"
fig, ax = plt.subplots(figsize=(7, 4))
for name in ("dgx1", "hgx-a100", "pcie-gen4-8gpu"):
    machine = ccsim.topology(name)
    rows = ccsim.predict(machine, op="allreduce", model="nccl", sizes=("64K", "1G"), stepfactor=4)
    ax.plot([r.size for r in rows], [r.busbw_GBps for r in rows], marker="o", label=f"{machine.name} ({machine.gpus} GPUs)")
    big = rows[-1]
    print(f"{machine.name:15} {big.size >> 20:5} MiB: {big.time_us:9.1f} us, busbw {big.busbw_GBps:6.1f} GB/s"
          f"  ({big.choice['algo']}/{big.choice['proto']}, {big.choice['channels']} channels)")
ax.set_xscale("log", base=2)
ax.set_xlabel("allreduce size (bytes)")
ax.set_ylabel("busbw (GB/s)")
ax.set_title("ccsim --model nccl: allreduce busbw")
ax.legend()
fig.tight_layout()
fig.savefig(png, dpi=100)

# Pick a ring on the DGX-1: the search's best order against GPUs in index order, both simulated.
best = ccsim.rings("dgx1", top=1)["rings"][0]["ring"]
for label, order in (("index order", list(range(8))), ("best ring", best)):
    row = ccsim.predict("dgx1", algo="ring", ring=order, sizes="256M")[0]
    print(f"{label:11} {'-'.join(map(str, order))}: busbw {row.busbw_GBps:5.1f} GB/s")
print(f"plot: {png}")
