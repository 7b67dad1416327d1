#!/usr/bin/env python3
"""`ccsim compare` on one synthetic output per nccl-tests / rccl-tests option or release whose output looks
different (tests/data/option_traces/, written by make_option_traces.py with the sources' printf formats; the
option matrix is in sim/trace/README.md).

Expected values are the generator's inputs and hand arithmetic, not ccsim's output: per run the collective,
the rank count, the row count, the first and last size, the first row's count (datatype-dependent: size / eltsize,
or size / (eltsize x ranks) for all_gather and reduce_scatter), its measured time in us (the half compare reads;
a 2017 table's ms x 1000) and which half that is. A file whose numbers are no collective's time must be refused
in one line naming the file, exit 2, nothing on stdout.
Usage: option_traces.py CCSIM DATA_DIR
"""
import json
import sys
import os

from expected_files import check_folder, refused_in_one_line, refuses_run_beyond, run

AR, AG, RS, BC = "allreduce", "allgather", "reducescatter", "broadcast"
G, M, K = 1 << 30, 1 << 20, 1 << 10
H100 = "machine:gpu=h100,gpus=8"
OOP, IP = "out-of-place", "in-place"
T1K = 20.01   # 20 + 1024 / 150e3 us, printed %.2f
T1M = 26.99   # 20 + 1048576 / 150e3
T1K_IP = 19.81  # in place: x 0.99
FULL = (9, K, 64 * M)  # rows, first, last of -b 1K -e 64M -f 4


def ar8(count=256, t=T1K, op=AR, column=OOP):
    return [(op, 8, *FULL, count, t, column)]


# file -> (topology, runs [(op, ranks, rows, first, last, first count, first time us, column)] or a refusal fragment)
EXPECTED = {
    "nv-default-allreduce-8gpu.txt": (H100, ar8()),
    "nv-d-f8e4m3-allreduce.txt": (H100, ar8(count=1024)),
    "nv-d-f8e5m2-reducescatter.txt": (H100, ar8(count=128, op=RS)),  # 1024 B / (1 B x 8)
    "nv-d-bfloat16-allgather.txt": (H100, ar8(count=64, op=AG)),  # 1024 B / (2 B x 8)
    "nv-d-int64-allreduce.txt": (H100, ar8(count=128)),
    "nv-d-all-allreduce.txt": (H100, [(AR, 8, 2, M, 4 * M, M // e, T1M, OOP) for e in (1, 1, 4, 4, 8, 8, 2, 4, 8, 2)]),
    "nv-o-all-allreduce.txt": (H100, [(AR, 8, 2, M, 4 * M, M // 4, T1M, OOP)] * 6),
    "nv-r-all-broadcast.txt": (H100, [(BC, 4, 3, M, 16 * M, M // 4, T1M, OOP)] * 4),
    "nv-N3-cycles-allreduce.txt": (H100, [(AR, 8, 3, M, 16 * M, M // 4, T1M, OOP)] * 3),
    "nv-c0-allreduce.txt": (H100, ar8()),
    "nv-z1-blocking-allreduce.txt": (H100, ar8()),
    "nv-G10-graph-allreduce.txt": (H100, ar8()),
    "nv-C1-cputime-allreduce.txt": (H100, "'cputime' (nccl-tests -C 1 without -z)"),
    "nv-C1-z3-cputime-blocking-allreduce.txt": (H100, ar8()),
    "nv-S1-timestamps-allreduce.txt": (H100, ar8()),
    "nv-I1-periter-allreduce.txt": (H100, ar8()),
    "nv-I1-S1-periter-timestamps-allreduce.txt": (H100, ar8()),
    "nv-t2-g4-threads-allreduce.txt": (H100, ar8()),
    "nv-mpi-2node-16rank-allreduce.txt": ("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib", [(AR, 16, *FULL, 256, T1K, OOP)]),
    "nv-M1-memory-allreduce.txt": (H100, ar8()),
    "nv-T5-timeout-allreduce.txt": (H100, [(AR, 8, 5, K, 256 * K, 256, T1K, OOP)]),
    # 4 GiB at 1 GB/s: 20 + 4294967296 / 1e3 = 4294987.3 us, printed "%7.0f"; 16 GiB prints 1.7e+07
    "nv-sci-time-allreduce.txt": (H100, [(AR, 8, 2, 4 * G, 16 * G, G, 4294987.0, OOP)]),
    "nv-k1-copybw-allreduce.txt": (H100, "column 'copybw' (nccl-tests -k 1)"),
    "nv-alltoallv-8gpu.txt": (H100, "ccsim models no alltoallv"),
    # 1 MiB at 40 GB/s: 20 + 1048576 / 40e3 = 46.2 us, printed 0.046 ms
    "nv2017-ms-allreduce-8gpu.txt": ("dgx1-v100", [(AR, 8, 4, M, 64 * M, M // 4, 46.0, OOP)]),
    "nv2017-ms-broadcast-8gpu.txt": ("dgx1-v100", [(BC, 8, 4, M, 64 * M, M // 4, 46.0, OOP)]),
    "nv-J-report-allreduce-8gpu.json": (H100, ar8(t=20.006827)),  # the JSON's time is not rounded
    "rccl-default-allreduce-8gpu.txt": ("machine:gpu=mi300x,gpus=8", ar8()),
    "rccl-gfx-names-allreduce-8gpu.txt": ("machine:gpu=mi300x,gpus=8", ar8()),
    "rccl-O0-inplace-only-allreduce.txt": ("machine:gpu=mi300x,gpus=8", ar8(t=T1K_IP, column=IP)),
    "rccl-s2-stress-cycles-allreduce.txt": ("machine:gpu=mi300x,gpus=8", [(AR, 8, 3, M, 16 * M, M // 4, T1M, OOP)] * 2),
    "rccl-d-fp8_e4m3-allreduce.txt": ("machine:gpu=mi300x,gpus=8", ar8(count=1024)),
    "rccl-d-bf16-allreduce.txt": ("machine:gpu=mi300x,gpus=8", ar8(count=512)),
}


def check_file(ccsim, path, topo, want):
    name = os.path.basename(path)
    base = ["compare", "--trace", path, "--topo", topo]
    if isinstance(want, str):
        return refused_in_one_line(ccsim, base, name, want)
    fails = []
    for i, w in enumerate(want, start=1):
        rc, out, err = run(ccsim, *base, "--run", str(i), "--format", "json")
        if rc != 0:
            fails.append(f"{name} run {i}: rc={rc}: {err.strip()}")
            continue
        d = json.loads(out)
        rows = d["rows"]
        got = (d["op"], d["ranks"], len(rows), rows[0]["size"], rows[-1]["size"], rows[0]["count"],
               round(rows[0]["measured_time_us"], 6), d["measured_column"])
        if got != w:
            fails.append(f"{name} run {i}: got {got}, want {w}")
    fails += refuses_run_beyond(ccsim, base, name, len(want))
    return fails


def main():
    ccsim, data = sys.argv[1], sys.argv[2]
    return check_folder(ccsim, data, (".txt", ".json"), EXPECTED, check_file, "option_traces.py", "option traces")


if __name__ == "__main__":
    sys.exit(main())
