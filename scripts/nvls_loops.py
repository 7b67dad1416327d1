#!/usr/bin/env python3
"""What one NVLS loop costs, measured and modelled: the per-loop read of a one-domain NVLS allreduce trace.

NCCL's one-node NVLS allreduce (NVIDIA/nccl src/device/all_reduce.h, RunWorkColl NVLS, `oneNode`) runs each CUDA
channel's share of the buffer in loops of nHeads x chunk, and calcCollChunking (src/enqueue.cc, NVLS) picks the
chunk from the whole call: NCCL_NVLS_CHUNKSIZE (128 KiB), halved to 64 / 32 / 16 KiB while nBytes is below
64 / 8 / 2 x channels x heads x the chunk so far (models/nccl.json `nvls.chunk_shrink`). Two sizes that run the
same chunk differ by (b - a) / W loops of W = channels x heads x chunk bytes, so the difference of their times
over that many loops is what one loop costs in steady state, with the launch, NVLS latency and the stages' fill
cancelled out. Where the 64 KiB and 128 KiB chunks both have a pair, a line t = a + W / B through them gives the
loop's fixed part a = 2 t(64 KiB) - t(128 KiB) (models/README.md, "NVLS per loop by architecture").

This runs `ccsim compare --model nccl --format json` on the trace (the measured and predicted times, the model's
pick and channels), keeps the rows the model runs as nvls/Simple, and prints per pair of sizes on one chunk the
measured and the predicted loop, then the fixed part a of each. A diagnostic, not a test: nothing is fitted.

  python3 scripts/nvls_loops.py --trace FILE --topo SPEC [--in-place] [--ccsim build/ccsim] [-- EXTRA compare args]
  (a file of several runs: one at a time, e.g. `-- --run 3 --ranks 64` with that run's --topo)
"""
import argparse, json, math, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def refuse(msg):
    print(f"nvls_loops.py: {msg}", file=sys.stderr)
    sys.exit(2)


def nvls_rule(tables):
    try:
        with open(tables) as f:
            n = json.load(f)["nvls"]
        return int(n["chunk_bytes"]), [(int(r["loops"]), int(r["bytes"])) for r in n["chunk_shrink"]], int(n["max_arity"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        refuse(f"{tables}: no NVLS chunk rule ({e})")


def chunk_bytes(nbytes, channels, heads, full, shrink):
    """calcCollChunking, NVLS: each row halves the chunk while nBytes < loops x channels x heads x chunk."""
    c = full
    for loops, smaller in shrink:
        if c > smaller and nbytes < loops * channels * heads * c: c = smaller
    return c


def heads_of(report, max_arity):
    """NVLS heads = the NVLS graph's channels (compare's nccl_graph line), else min(max arity, ranks)."""
    m = re.search(r"NVLS (\d+) channel", str(report.get("nccl_graph", "")))
    if m: return int(m.group(1))
    return min(max_arity, int(report.get("ranks", 0) or 0))


def pairs(rows, heads, full, shrink):
    """Consecutive nvls/Simple sizes on one chunk and channel count: (a, b, chunk, W, loops between them)."""
    nv = sorted((r for r in rows if r.get("algo") == "nvls" and r.get("proto") == "Simple"), key=lambda r: r["size"])
    out = []
    for x, y in zip(nv, nv[1:]):
        ch = int(x.get("channels", 0))
        if ch < 1 or ch != int(y.get("channels", 0)): continue
        cx, cy = (chunk_bytes(r["size"], ch, heads, full, shrink) for r in (x, y))
        if cx != cy: continue
        w = ch * heads * cx
        out.append((x, y, cx, w, (y["size"] - x["size"]) / w))
    return out


def fmt_size(b):
    for unit, s in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= s and b % s == 0: return f"{b // s} {unit}"
    return f"{b} B"


def report_run(report, full, shrink, max_arity, out):
    heads = heads_of(report, max_arity)
    if heads < 1: refuse(f"{report.get('trace', '?')}: no NVLS heads (the model built no NVLS graph)")
    ps = pairs(report.get("rows", []), heads, full, shrink)
    out.write(f"# {report.get('trace', '?')}: {report.get('ranks', '?')} ranks, {heads} NVLS heads, "
              f"{report.get('measured_column', 'out-of-place')} times\n")
    if not ps:
        out.write("no two sizes run as nvls/Simple on one chunk: nothing to read\n")
        return
    out.write("sizes | chunk | loop bytes W | loops between | measured us/loop | model us/loop | measured GB/s | model GB/s\n")
    per_chunk = {}
    for x, y, c, w, n in ps:
        m = (y["measured_time_us"] - x["measured_time_us"]) / n
        p = (y["predicted_time_us"] - x["predicted_time_us"]) / n
        per_chunk.setdefault(c, []).append((m, p, w))
        out.write(f"{fmt_size(x['size'])} -> {fmt_size(y['size'])} | {fmt_size(c)} | {w / 2**20:.1f} MiB | {n:.2f} | "
                  f"{m:.2f} | {p:.2f} | {w / m / 1e3 if m > 0 else float('nan'):.1f} | {w / p / 1e3 if p > 0 else float('nan'):.1f}\n")
    def median(xs):
        xs = sorted(xs)
        return (xs[(len(xs) - 1) // 2] + xs[len(xs) // 2]) / 2
    med = {c: (median([m for m, _, _ in v]), median([p for _, p, _ in v])) for c, v in per_chunk.items()}
    if 65536 in med and 131072 in med:
        (m64, p64), (m128, p128) = med[65536], med[131072]
        out.write(f"fixed part a = 2 t(64 KiB) - t(128 KiB), medians of the pairs: measured {2 * m64 - m128:.2f} us, model {2 * p64 - p128:.2f} us"
                  f" (channels {ps[0][0]['channels']})\n")
    else:
        out.write("fixed part a: needs a 64 KiB and a 128 KiB pair\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace", required=True)
    ap.add_argument("--topo", required=True)
    ap.add_argument("--ccsim", default=os.path.join(ROOT, "build", "ccsim"))
    ap.add_argument("--tables", default=os.path.join(ROOT, "models", "nccl.json"))
    ap.add_argument("--in-place", action="store_true")
    ap.add_argument("extra", nargs="*", help="more `ccsim compare` arguments, after --")
    a = ap.parse_args()
    if not os.path.isfile(a.trace): refuse(f"--trace {a.trace}: no such file")
    if not os.access(a.ccsim, os.X_OK): refuse(f"--ccsim {a.ccsim}: not an executable")
    full, shrink, max_arity = nvls_rule(a.tables)
    cmd = [a.ccsim, "compare", "--trace", a.trace, "--topo", a.topo, "--model", "nccl", "--op", "allreduce",
           "--format", "json"] + (["--in-place"] if a.in_place else []) + a.extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["exit status %d" % p.returncode])[0]
        refuse(f"ccsim compare failed on {a.trace}: {err}")
    try:
        data = json.loads(p.stdout)
    except ValueError:
        refuse(f"ccsim compare printed no JSON for {a.trace}")
    for report in data if isinstance(data, list) else [data]:
        report_run(report, full, shrink, max_arity, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
