#!/usr/bin/env python3
"""Writes the synthetic nccl-tests / rccl-tests outputs of this folder, one per command-line option or release
whose output looks different (sim/trace/README.md, "Every option of nccl-tests and rccl-tests").

Nothing here is a measurement: every time is made up (a 20 us floor plus size / 150 GB/s, or the option's own
rule) and algbw/busbw follow from it as nccl-tests computes them (algbw = size / time, busbw = algbw x the bus
factor of the collective). What is copied is the shape: each line is printed with the printf formats of the
source it names (Python's % formats are C's):
  NVIDIA/nccl-tests a0b82b2 (2.19.6) src/util.cu: writeDeviceReport, writeResultHeader, writeBenchmarkLinePreamble,
    writeBenchmarkLineBody (getFloatStr), writePerIterReport, writeTimestamp, writeResultFooter, writeMemInfo;
    src/common.cu: TimeTest (-N cycles), *RunTest (-d all, -o all, -r -1 loops), the timeout report.
  NVIDIA/nccl-tests 7bd5758 (2024-07, removed d39f59d): the side_work copybw column (-k 1).
  NVIDIA/nccl-tests b188a15 (2017): "bytes N type op" tables, times in ms (deltaSec * 1.0E3, "%7.3f").
  ROCm/rccl-tests ae3e635 src/common.cu: "rccl-tests: Version", "#   Rank %2d Pid ..." device lines, the
    in-place-only table (-O 0), "# Testing %lu cycle." (-s stress cycles), "%7.2f"-style times.
Run from anywhere: python3 make_option_traces.py  (rewrites the files next to it).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
K, M, G = 1 << 10, 1 << 20, 1 << 30
ELT = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "half": 2, "float": 4, "double": 8,
       "bfloat16": 2, "f8e4m3": 1, "f8e5m2": 1, "bf16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1, "char": 1, "int": 4}
TOTAL = {"all_gather", "reduce_scatter", "alltoall"}  # size printed is the total; count = size / (elt x n)
FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
          "broadcast": lambda n: 1, "reduce": lambda n: 1}


def float_str(v, width):  # util.cu getFloatStr
    for f in ("%*.2f", "%*.1f", "%*.0f"):
        s = f % (width, v)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, v)


def made_up_time(size, floor=20.0, gbps=150.0):
    return floor + size / (gbps * 1e3)


def halves(test, size, n, t_us):
    alg = size / 1e3 / t_us
    return alg, alg * FACTOR[test](n)


SOURCE = {
    "nv": "NVIDIA/nccl-tests a0b82b2 (2.19.6) src/util.cu printf formats",
    "nv2017": "NVIDIA/nccl-tests b188a15 (2017) src/all_reduce.cu print_header + src/common.cu BenchTime printf formats",
    "nvcopy": "NVIDIA/nccl-tests 7bd5758 (2024-07) src/common.cu side_work printf formats",
    "rccl": "ROCm/rccl-tests ae3e635 src/common.cu printf formats",
}


def banner(what, src, option):
    return [f"# synthetic: not a measurement. {what}; lines printed with {SOURCE[src]};",
            f"#            times made up (a floor plus size / a bandwidth), algbw = size / time, busbw = algbw x bus factor.",
            f"# option: {option}"]


def nv_head(prog, nthread=1, ngpus=8, minb=1 * K, maxb=64 * M, factor=4, iters=20, validation=1, graph=0,
            extra=(), procs=1, hosts=("node01",), names="NVIDIA H100 80GB HBM3"):
    out = ["# nccl-tests version 2.19.6 nccl-headers=22703 nccl-library=22703",
           f"# Collective test starting: {prog}",
           "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d unalign: %d"
           % (nthread, ngpus, minb, maxb, factor, "factor", 5, iters, 1, validation, graph, 0)]
    out += list(extra)
    out += ["#", "# Using devices"]
    per = nthread * ngpus
    for p in range(procs):
        host = hosts[p * len(hosts) // procs]
        for i in range(per):
            rank = p * per + i
            dev = (p % max(1, procs // len(hosts))) * per + i
            out.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s"
                       % (rank, 0, 4000 + p, host, dev % 8, 0, 0x18 + 0x10 * (dev % 8), 0, names))
    return out


def nv_table_head(timestr="time", timestamps=False, per_iter=False):
    ts_lbl, ts_pad, ts_fmt = ("timestamp", 19, "%Y-%m-%d %H:%M:%S") if timestamps else ("", 0, "")
    if per_iter:
        return ["#",
                "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                                in-place (+ per-iteration)" % ("", "", "", "", ""),
                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s"
                % ("size", "count", "type", "redop", "root", timestr, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%",
                   timestr, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", ts_pad, ts_lbl),
                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s"
                % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)",
                   "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", ts_pad, ts_fmt)]
    return ["#",
            "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s"
            % ("size", "count", "type", "redop", "root", timestr, "algbw", "busbw", "#wrong", timestr, "algbw", "busbw", "#wrong", ts_pad, ts_lbl),
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s"
            % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", ts_pad, ts_fmt)]


def nv_rows(test, n, sizes, dtype="float", redop="sum", root=-1, check=True, per_iter=False, timestamps=False,
            time_of=made_up_time):
    out = []
    for s in sizes:
        elt = ELT[dtype]
        count = s // elt // n if test in TOTAL else s // elt
        line = "%12li  %12li  %8s  %6s  %6s" % (s, count, dtype, redop, "%6i" % root)
        for half in (0, 1):
            t = time_of(s) * (1.0 if half == 0 else 0.99)
            alg, bus = halves(test, s, n, t)
            body = ("  %7s  %6s  %6s  %6g" % (float_str(t, 7), float_str(alg, 6), float_str(bus, 6), 0) if check
                    else "  %7s  %6s  %6s    N/A" % (float_str(t, 7), float_str(alg, 6), float_str(bus, 6)))
            line += body
            if per_iter:
                line += "  %7s  %7s  %7s  %7s" % (float_str(t * 0.97, 7), float_str(t * 1.2, 7), float_str(t * 1.15, 7), float_str(3.25, 7))
        if timestamps:
            line += "%21s" % "2026-07-09 12:34:56"
        out.append(line)
    return out


def nv_foot(prog, avg=50.0, extra=()):
    return ["# %-20s : %d %s" % ("Out of bounds values", 0, "OK"), "# %-20s : %g %s" % ("Avg bus bandwidth", avg, ""), "#",
            f"# Collective test concluded: {prog}", *extra, ""]


def sizes_from(lo, hi, f=4):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= f
    return out


def write(name, lines):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


def nv_file(name, option, what, test="all_reduce", n=8, sizes=None, head_kw=None, table_kw=None, row_kw=None,
            middle=None, foot_extra=(), sweeps=None):
    prog = f"{test}_perf"
    sizes = sizes or sizes_from(1 * K, 64 * M)
    head_kw = dict(head_kw or {})
    head_kw.setdefault("ngpus", n)
    lines = banner(what, "nv", option) + nv_head(prog, minb=sizes[0], maxb=sizes[-1], **head_kw)
    lines += nv_table_head(**(table_kw or {}))
    for i, sw in enumerate(sweeps or [{}]):
        if i and middle:
            lines += middle(i)
        kw = dict(row_kw or {})
        kw.update(sw)
        lines += nv_rows(test, n, sizes, **kw)
    lines += nv_foot(prog, extra=foot_extra)
    write(name, lines)


def main():
    ar = "all_reduce"
    nv_file("nv-default-allreduce-8gpu.txt", "(none) all_reduce_perf -b 1K -e 64M -f 4 -g 8",
            "nccl-tests 2.19.6 default output, one process, 8 GPUs")
    nv_file("nv-d-f8e4m3-allreduce.txt", "-d f8e4m3 (nccl-tests 2.16+ with NCCL 2.24+, sm90+): 1-byte elements",
            "fp8 e4m3: count = size / 1", row_kw={"dtype": "f8e4m3"})
    nv_file("nv-d-f8e5m2-reducescatter.txt", "-d f8e5m2: 1-byte elements; reduce_scatter count = size / (1 x 8)",
            "fp8 e5m2 reduce_scatter", test="reduce_scatter", row_kw={"dtype": "f8e5m2", "redop": "sum"})
    nv_file("nv-d-bfloat16-allgather.txt", "-d bfloat16: 2-byte elements; all_gather count = size / (2 x 8)",
            "bfloat16 all_gather", test="all_gather", row_kw={"dtype": "bfloat16", "redop": "none"})
    nv_file("nv-d-int64-allreduce.txt", "-d int64: 8-byte elements, count = size / 8", "int64 all_reduce",
            row_kw={"dtype": "int64"})
    types = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"]
    nv_file("nv-d-all-allreduce.txt", "-d all: one size sweep per datatype in one table (AllReduceRunTest's type loop)",
            "-d all over 10 types", sizes=[1 * M, 4 * M], sweeps=[{"dtype": t} for t in types])
    ops = ["sum", "prod", "max", "min", "avg", "mulsum"]
    nv_file("nv-o-all-allreduce.txt", "-o all: one size sweep per reduction (sum prod max min avg mulsum)",
            "-o all over 6 reductions", sizes=[1 * M, 4 * M], sweeps=[{"redop": o} for o in ops])
    nv_file("nv-r-all-broadcast.txt", "-r -1 on broadcast: one size sweep per root 0..n-1 (BroadcastRunTest)",
            "broadcast on 4 ranks, every root", test="broadcast", n=4, sizes=[1 * M, 4 * M, 16 * M],
            sweeps=[{"redop": "none", "root": r} for r in range(4)])
    nv_file("nv-N3-cycles-allreduce.txt", "-N 3 (run_cycles): the size sweep printed 3 times in one table",
            "3 cycles", sizes=[1 * M, 4 * M, 16 * M], sweeps=[{}, {}, {}])
    nv_file("nv-c0-allreduce.txt", "-c 0: no data check, #wrong prints N/A, 'validation: 0'", "-c 0",
            head_kw={"validation": 0}, row_kw={"check": False})
    nv_file("nv-z1-blocking-allreduce.txt", "-z 1: blocking collectives, a '# Blocking Enabled' line", "-z 1",
            head_kw={"extra": ["# Blocking Enabled: wait and barrier after each inner iteration (-m) "]})
    nv_file("nv-G10-graph-allreduce.txt", "-G 10: CUDA graph launches, 'graph: 10' in the nThread line", "-G 10",
            head_kw={"graph": 10})
    nv_file("nv-C1-cputime-allreduce.txt", "-C 1 without -z: the time columns are 'cputime', the CPU time to launch",
            "-C 1 (launch time: 5 us a call whatever the size)", table_kw={"timestr": "cputime"},
            row_kw={"time_of": lambda s: 5.0})
    nv_file("nv-C1-z3-cputime-blocking-allreduce.txt", "-C 1 -z 3: cputime of blocking collectives (waited for)",
            "-C 1 -z 3", table_kw={"timestr": "cputime"},
            head_kw={"extra": ["# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier "]})
    nv_file("nv-S1-timestamps-allreduce.txt", "-S 1: a timestamp (%Y-%m-%d %H:%M:%S) ends each row", "-S 1",
            table_kw={"timestamps": True}, row_kw={"timestamps": True})
    nv_file("nv-I1-periter-allreduce.txt", "-I 1 -K 2: i_min i_max i_p99 i_cv% after each half", "-I 1 -K 2",
            head_kw={"extra": ["# Per-Iteration Report: CUDA event timing; i_* uses max over process rows; summary skips first 2 iterations "]},
            table_kw={"per_iter": True}, row_kw={"per_iter": True})
    nv_file("nv-I1-S1-periter-timestamps-allreduce.txt", "-I 1 -S 1: per-iteration columns and a timestamp", "-I 1 -S 1",
            head_kw={"extra": ["# Per-Iteration Report: CUDA event timing; i_* uses max over process rows "]},
            table_kw={"per_iter": True, "timestamps": True}, row_kw={"per_iter": True, "timestamps": True})
    nv_file("nv-t2-g4-threads-allreduce.txt", "-t 2 -g 4: one process, 2 threads x 4 GPUs = 8 ranks", "-t 2 -g 4",
            head_kw={"nthread": 2, "ngpus": 4})
    nv_file("nv-mpi-2node-16rank-allreduce.txt", "mpirun -np 16 ... -g 1: 16 processes on 2 hosts, one device line each",
            "MPI, 2 nodes x 8", n=16, head_kw={"ngpus": 1, "procs": 16, "hosts": ("node01", "node02")})
    nv_file("nv-M1-memory-allreduce.txt", "-M 1: a '# GPU memory usage' line after the footer", "-M 1",
            foot_extra=["# %-20s : %s" % ("GPU memory usage", "NCCL 1.23 GB | Buffers 1.50 GB | Other 512 MB | Total  3.23 GB")])
    # the run stops on a timeout (common.cu testStreamSynchronize): rows before it stand
    sizes = sizes_from(1 * K, 64 * M)
    prog = "all_reduce_perf"
    lines = banner("a run stopped by -T 5", "nv", "-T 5: 'host: Test timeout (5s) file:line' and no footer")
    lines += nv_head(prog, minb=sizes[0], maxb=sizes[-1]) + nv_table_head() + nv_rows(ar, 8, sizes[:5])
    lines += ["%12li  %12li  %8s  %6s  %6s" % (sizes[5], sizes[5] // 4, "float", "sum", "%6i" % -1) + "node01: Test timeout (5s) /src/nccl-tests/src/common.cu:523",
              " .. node01 pid 4000: Test failure common.cu:1203"]
    write("nv-T5-timeout-allreduce.txt", lines)
    # getFloatStr falls back to %.1e past 7 characters: a 16 GiB allreduce at 1 GB/s takes 1.7e+07 us
    nv_file("nv-sci-time-allreduce.txt", "(none): a time too wide for %7.2f..%7.0f prints as %7.1e (getFloatStr)",
            "slow large sizes", sizes=[4 * G, 16 * G], row_kw={"time_of": lambda s: made_up_time(s, gbps=1.0)})
    # side_work (-k 1, nccl-tests 2.13.10-2.17.x): a copybw column in each half
    lines = banner("-k 1 side work", "nvcopy", "-k 1: copy work runs beside the collective; a copybw column per half")
    lines += ["# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4194304 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0  side_work: 1 work_sms: 0 ",
              "#", "# Using devices"]
    lines += ["#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s" % (r, 0, 4000, "node01", r, 0x18 + r, "NVIDIA H100 80GB HBM3") for r in range(8)]
    lines += ["#", "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
              "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s %6s  %7s  %6s  %6s %6s %6s" % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "copybw", "#wrong", "time", "algbw", "busbw", "copybw", "#wrong"),
              "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s %5s  %7s  %6s  %6s  %6s %5s" % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "(GB/s)", "")]
    for s in (1 * M, 4 * M):
        line = "%12li  %12li  %8s  %6s  %6s" % (s, s // 4, "float", "sum", "%6i" % -1)
        for _ in (0, 1):
            t = made_up_time(s)
            alg, bus = halves(ar, s, 8, t)
            line += "  %7s  %6.2f  %6.2f  %6.2f %5g" % ("%7.2f" % t, alg, bus, 20.0, 0)
        lines.append(line)
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 50 ", "# Base Copy BW : 25 "]
    write("nv-k1-copybw-allreduce.txt", lines)
    # 2017 (nccl-tests 1.x): "bytes N type op" and times in milliseconds
    for test, name, opcol in (("all_reduce", "nv2017-ms-allreduce-8gpu.txt", "op"), ("broadcast", "nv2017-ms-broadcast-8gpu.txt", "root")):
        lines = banner("the 2017 table", "nv2017", "(2017 release): 'bytes N type op|root' columns, time printed in ms")
        lines += ["nThread 1 nGpus 8 minBytes 1048576 maxBytes 67108864 step: 4(factor) warmup iters: 5 iters: 20 validation: 1 ",
                  "# Using devices"]
        lines += ["#   Rank %2d on %10s device %2d [0x%02x] %s" % (r, "dgx1", r, 0x06 + r, "Tesla V100-SXM2-16GB") for r in range(8)]
        lines.append("")
        if test == "all_reduce":
            lines += ["# %10s  %12s  %6s  %6s        out-of-place                    in-place" % ("", "", "", ""),
                      "# %10s  %12s  %6s  %6s  %7s  %5s  %5s  %7s  %7s  %5s  %5s  %7s" % ("bytes", "N", "type", "op", "time", "algbw", "busbw", "res", "time", "algbw", "busbw", "res")]
        else:
            lines += ["# %10s  %12s  %6s  %6s        out-of-place" % ("", "", "", ""),
                      "# %10s  %12s  %6s  %6s  %7s  %5s  %5s  %7s" % ("bytes", "N", "type", "root", "time", "algbw", "busbw", "res")]
        for s in sizes_from(1 * M, 64 * M):
            line = "%12li  %12li  %6s  %6s" % (s, s // 4, "float", "sum") if test == "all_reduce" else "%12li  %12li  %6s  %6i" % (s, s // 4, "float", 0)
            for _ in ((0, 1) if test == "all_reduce" else (0,)):
                t_ms = made_up_time(s, gbps=40.0) / 1e3
                alg = s / 1e9 / (t_ms / 1e3)
                line += "  %7.3f  %5.2f  %5.2f  %7.0le" % (t_ms, alg, alg * FACTOR[test](8), 0.0)
            lines.append(line)
        lines += [" Out of bounds values : 0 OK", " Avg bus bandwidth    : 20 ", ""]
        write(name, lines)
    nv_file("nv-alltoallv-8gpu.txt", "alltoallv_perf (2.19+): per-peer sizes differ; algbw from the busiest rank's bytes",
            "alltoallv (its algbw/busbw here as alltoall's: the shape is what matters)", test="alltoall",
            row_kw={"redop": "none"})
    with open(os.path.join(HERE, "nv-alltoallv-8gpu.txt")) as f:
        text = f.read().replace("alltoall_perf", "alltoallv_perf")
    with open(os.path.join(HERE, "nv-alltoallv-8gpu.txt"), "w") as f:
        f.write(text)
    # -J out.json (ad956f1, 2025-10): util.cu's hand-written JSON (no spaces, doubles as %lf, root as the "%6i" string,
    # one "devices" entry per process parsed from its first device line)
    def js(v):
        if v is None:
            return "null"
        if isinstance(v, bool):
            return '"true"' if v else '"false"'  # jsonBool writes a string
        if isinstance(v, int):
            return "%d" % v
        if isinstance(v, float):
            return "%lf" % v
        if isinstance(v, str):
            return '"%s"' % v
        if isinstance(v, list):
            return "[" + ",".join(js(x) for x in v) + "]"
        return "{" + ",".join('"%s":%s' % (k, js(x)) for k, x in v.items()) + "}"
    results = []
    for sz in sizes_from(1 * K, 64 * M):
        rec = {"size": sz, "count": sz // 4, "type": "float", "redop": "sum", "root": "%6i" % -1}
        for key, f in (("out_of_place", 1.0), ("in_place", 0.99)):
            t = made_up_time(sz) * f
            alg, bus = halves(ar, sz, 8, t)
            rec[key] = {"time": t, "alg_bw": alg, "bus_bw": bus, "nwrong": 0.0}
        rec.update({"actual_iterations": 20, "experiment_name": ""})
        results.append(rec)
    doc = {"version": 1, "start_time": "2026-07-09 12:34:50",
           "args": ["./build/all_reduce_perf", "-b", "1K", "-e", "64M", "-f", "4", "-g", "8", "-J", "out.json"],
           "env": ["NCCL_DEBUG=WARN", "NCCL_PROTO=Simple", "PATH=/usr/bin"], "nccl_version": 22703,
           "config": {"nthreads": 1, "ngpus": 8, "minimum_bytes": 1024, "maximum_bytes": 64 * M, "step_factor": 4,
                      "warmup_iters": 5, "iterations": 20, "aggregated_iterations": 1, "validation": 1, "graph": 0,
                      "blocking_collectives": False, "per_iter_timing": False, "per_iter_skip": 0, "parallel_init": False,
                      "devices": [{"rank": 0, "group": 0, "pid": 4000, "hostname": "node01", "device": 0,
                                   "device_hex": "0000:18:00", "device_info": "NVIDIA H100 80GB HBM3"}]},
           "results": results, "out_of_bounds": {"count": 0, "okay": True},
           "average_bus_bandwidth": {"bandwidth": 150.5, "okay": "unchecked"}, "errors": [], "end_time": "2026-07-09 12:35:10"}
    with open(os.path.join(HERE, "nv-J-report-allreduce-8gpu.json"), "w") as f:
        f.write(js(doc))  # synthetic, like the .txt files: the JSON has no comment syntax to say so
    # rccl-tests
    def rccl_file(name, option, what, sizes=None, dtype="float", inplace_only=False, cycles=1, gfx="AMD Instinct MI300X"):
        sizes = sizes or sizes_from(1 * K, 64 * M)
        lines = banner(what, "rccl", option)
        lines += ["# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d"
                  % (1, 8, sizes[0], sizes[-1], 4, "factor", 5, 20, 1, 1, 0), "#", "rccl-tests: Version develop:448c4c7", "# Using devices"]
        lines += ["#   Rank %2d Pid %6d on %10s device %2d [%s] %s" % (r, 5000, "mi300x-01", r, "0000:%02x:00.0" % (0x05 + 0x20 * r), gfx) for r in range(8)]
        lines.append("#")
        if inplace_only:
            lines += ["# %10s  %12s  %8s  %6s  %6s           in-place          " % ("", "", "", "", ""),
                      "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s" % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong"),
                      "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s" % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "")]
        else:
            lines += ["# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
                      "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s" % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"),
                      "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")]
        for c in range(cycles):
            if c > 0:
                lines.append("# Testing %lu cycle." % (c + 1))
            for s in sizes:
                line = "%12li  %12li  %8s  %6s  %6s" % (s, s // ELT[dtype], dtype, "sum", "%6i" % -1)
                for half in ((1,) if inplace_only else (0, 1)):
                    t = made_up_time(s) * (1.0 if half == 0 else 0.99)
                    ts = "%7.0f" % t if t >= 10000 else "%7.1f" % t if t >= 100 else "%7.2f" % t
                    alg, bus = halves(ar, s, 8, t)
                    line += "  %7s  %6.2f  %6.2f  %5g" % (ts, alg, bus, 0)
                lines.append(line)
        lines += ["# Errors with asterisks indicate errors that have exceeded the maximum threshold.",
                  "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 50 ", "#", ""]
        write(name, lines)

    rccl_file("rccl-default-allreduce-8gpu.txt", "(none) all_reduce_perf -b 1K -e 64M -f 4 -g 8", "rccl-tests default output")
    rccl_file("rccl-gfx-names-allreduce-8gpu.txt", "(none): device lines naming the gfx target (older ROCm's prop.name)",
              "gfx names", gfx="gfx942")
    rccl_file("rccl-O0-inplace-only-allreduce.txt", "-O 0 (out_of_place 0): only the in-place half is printed",
              "in-place only", inplace_only=True)
    rccl_file("rccl-s2-stress-cycles-allreduce.txt", "-s 2 (stress_cycles): the sweep twice, '# Testing 2 cycle.' between",
              "2 stress cycles", sizes=[1 * M, 4 * M, 16 * M], cycles=2)
    rccl_file("rccl-d-fp8_e4m3-allreduce.txt", "-d fp8_e4m3 (rccl-tests' fp8 names): 1-byte elements", "fp8 e4m3",
              dtype="fp8_e4m3")
    rccl_file("rccl-d-bf16-allreduce.txt", "-d bf16 (rccl-tests 2019-2023 name of bfloat16): 2-byte elements", "bf16",
              dtype="bf16")


if __name__ == "__main__":
    main()
