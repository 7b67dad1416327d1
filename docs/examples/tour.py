#!/usr/bin/python3
"""docs/python.md's quick look: a topology, a route, a sweep, NCCL's choice, an error.

    PYTHONPATH=build/python docs/examples/tour.py
"""
import ccsim

t = ccsim.topology("dgx1")
print(t.name, t.gpus, "GPUs,", len(t.links), "links")
print(t.route(0, 5))
rows = ccsim.predict(t, op="allreduce", algo="ring", sizes=("1M", "4M"))
for r in rows:
    print(r.size, r.time_us, round(r.busbw_GBps, 2))
print(ccsim.predict("machine:gpu=h100,nodes=4,nics=8x400G", model="nccl", sizes="1G")[0].choice)
try:
    ccsim.predict(t, ring=[0, 1, 2, 3, 4, 5, 6, 6])
except ccsim.Error as e:
    print("ccsim.Error:", e)
