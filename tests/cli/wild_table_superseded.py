#!/usr/bin/env python3
"""The wild table counts each measurement once (scripts/wild_table.py, sim/trace/README.md "An unseen check").

OCI's GB300 page was stored twice: a later version's cut (the 8 and 16 GiB rows) and the earlier whole
512 KiB-16 GiB sweep. The cut files' rows, as printed in the files (checked here by reading the files, not through
ccsim), are the sweep's last two; the table lists each cut under "superseded by", out of the counted rows the
medians, the counts and models/evidence.json read. On synthetic tables: two counted rows holding the same
measured rows are refused; a superseded row naming a file that is not a counted row, or one that does not hold
its rows, is refused; a right one is listed, its reason printed, and kept out of the counted rows.

  wild_table_superseded.py CCSIM SOURCE_DIR"""
import os, re, sys

ccsim, root = os.path.abspath(sys.argv[1]), sys.argv[2]
os.chdir(root)
sys.path.insert(0, os.path.join(root, "scripts"))
import wild_table as wt  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    if not ok:
        print(f"FAIL: {what}")
        fails += 1


def data_rows(name):
    """size -> the out-of-place time of a plain nccl-tests table, read from the file as printed."""
    out = {}
    for line in open(os.path.join(wt.TRACES, name)):
        f = line.split()
        if len(f) >= 8 and not line.startswith("#") and f[0].isdigit():
            out[int(f[0])] = f[5]
    return out


# The real table: the four cut files are listed as superseded by their sweeps and are no counted row.
text = open(wt.README).read()
counted = {m["file"] for m in map(wt.ROW.match, text.split("\n")) if m}
listed = {m["file"]: m["by"] for m in map(wt.SUPERSEDED.match, text.split("\n")) if m}
for scale in ("4gpu", "2host-8gpu", "16host-64gpu", "32host-2rack-128gpu"):
    cut = [f for f in os.listdir(wt.TRACES) if f.startswith(f"gb300-oci-{scale}-alltoall-8G-16G-")]
    sweep = [f for f in os.listdir(wt.TRACES) if f.startswith(f"gb300-oci-{scale}-alltoall-512K-16G-")]
    check(f"{scale}: one cut file and one sweep file", len(cut) == 1 and len(sweep) == 1)
    if len(cut) != 1 or len(sweep) != 1:
        continue
    rc, rs = data_rows(cut[0]), data_rows(sweep[0])
    check(f"{scale}: the cut's rows are 8 and 16 GiB", sorted(rc) == [8 << 30, 16 << 30])
    check(f"{scale}: the cut's rows are the sweep's (same time as printed)", all(rs.get(s) == t for s, t in rc.items()))
    check(f"{scale}: the cut is not a counted row", cut[0] not in counted)
    check(f"{scale}: the sweep is a counted row", sweep[0] in counted)
    check(f"{scale}: the cut is listed as superseded by the sweep", listed.get(cut[0]) == sweep[0])

# Synthetic tables on the 4-GPU files (fast to compare).
CUT = "gb300-oci-4gpu-alltoall-8G-16G-1host-truncated-nccl2287-ociquickstart.txt"
SWEEP = "gb300-oci-4gpu-alltoall-512K-16G-1host-wholesweep-nccl2287-ociquickstart.txt"
OTHER = "gb300-oci-4gpu-allreduce-512K-16G-1host-wholesweep-nccl2287-ociquickstart.txt"
T = "`machine:gpu=gb300,gpus=4`"


def row(f, op="alltoall"):
    return f"| {f} | {T} | {op} | 4 | x | x |"


def cut_row(f, by):
    return f"| {f} | {T} | alltoall | 4 | {by} | x | x |"


def run_table(lines):
    said = []
    try:
        out = wt.table(ccsim, "\n".join(lines), say=said.append)
        return 0, out, said
    except SystemExit as e:
        return 1, str(e.code), said


rc, msg, _ = run_table([row(SWEEP), row(CUT), row(OTHER, "allreduce")])
check(f"two counted rows with the same measured rows refused: {msg[:200]}",
      rc == 1 and CUT in msg and SWEEP in msg and "count twice" in msg and "\n" not in msg)

rc, out, said = run_table([row(SWEEP), row(OTHER, "allreduce"), "", cut_row(CUT, SWEEP)])
check(f"a right superseded row accepted: {out[:200]}", rc == 0)
if rc == 0:
    lines = out.split("\n")
    check("the counted rows are the sweep and the other op only",
          sorted(m["file"] for m in map(wt.ROW.match, lines) if m) == sorted([SWEEP, OTHER]))
    sup = [m for m in map(wt.SUPERSEDED.match, lines) if m]
    check("the superseded row kept, naming its sweep", len(sup) == 1 and sup[0]["file"] == CUT and sup[0]["by"] == SWEEP)
    check("the superseded row's error columns written", re.search(r"\| [0-9.]+ % \| [0-9.]+ % \|$", lines[3]) is not None)
    check(f"the reason printed: {said}", len(said) == 1 and CUT in said[0] and SWEEP in said[0] and "not counted" in said[0])

rc, msg, _ = run_table([row(OTHER, "allreduce"), cut_row(CUT, SWEEP)])
check(f"superseded by a file that is no counted row refused: {msg[:200]}", rc == 1 and "not a counted row" in msg)

rc, msg, _ = run_table([row(SWEEP), row(OTHER, "allreduce"), cut_row(CUT, OTHER)])
check(f"superseded by a file without its rows refused: {msg[:200]}", rc == 1 and "not a cut of" in msg)

# (mutants8) The refusals' conditions, on copies in a temporary folder (wt.TRACES pointed there; the shipped
# files are not touched). ONE is the cut with its 16 GiB row's times changed, so it shares exactly one measured row
# (8 GiB, 10308 us) with the sweep: one shared row can be two runs' common floor, so two counted rows sharing it
# are accepted. A copy of the sweep listed with 8 ranks holds the same rows under another rank count: accepted as
# a counted row beside the 4-rank sweep, and refused as the 4-rank sweep's cut ("another op or rank count").
import shutil, tempfile  # noqa: E402
tmp = tempfile.mkdtemp(prefix="ccsim-wild-")
try:
    for f in (CUT, SWEEP):
        shutil.copy(os.path.join(wt.TRACES, f), tmp)
    ONE, COPY = "one-shared-row.txt", "sweep-copy.txt"
    shutil.copy(os.path.join(wt.TRACES, SWEEP), os.path.join(tmp, COPY))
    text_cut = open(os.path.join(wt.TRACES, CUT)).read()
    row16 = [l for l in text_cut.split("\n") if l.strip().startswith("17179869184 ")]
    check("the cut has one 16 GiB row", len(row16) == 1)
    changed = row16[0].replace(" 20527 ", " 20600 ").replace(" 18929 ", " 19000 ")
    check("the 16 GiB row's times changed", changed != row16[0] and len(changed) == len(row16[0]))
    with open(os.path.join(tmp, ONE), "w") as f:
        f.write(text_cut.replace(row16[0], changed))
    saved, wt.TRACES = wt.TRACES, tmp
    try:
        rc, out, _ = run_table([row(SWEEP), row(ONE)])
        check(f"two counted rows sharing one measured row accepted: {out[:200]}", rc == 0)
        rc, out, _ = run_table([row(SWEEP), f"| {COPY} | {T} | alltoall | 8 | x | x |"])
        check(f"the same rows under another rank count accepted as two counted rows: {out[:200]}", rc == 0)
        rc, msg, _ = run_table([row(SWEEP), f"| {CUT} | {T} | alltoall | 8 | {SWEEP} | x | x |"])
        check(f"a cut listed with another rank count than its sweep refused: {msg[:200]}",
              rc == 1 and "another op or rank count" in msg and "\n" not in msg)
    finally:
        wt.TRACES = saved
finally:
    shutil.rmtree(tmp)

# The figures the prose quotes read the counted rows (wild_table.ROW) only, and no superseded row is one.
check("check_docs reads the wild table through wild_table.ROW", "WILD_ROW.match" in open("scripts/check_docs.py").read())
check("no superseded row matches ROW", not any(wt.ROW.match(l) for l in text.split("\n") if wt.SUPERSEDED.match(l)))

if fails:
    sys.exit(f"wild_table_superseded: {fails} check(s) failed")
print("wild_table_superseded: all checks passed")
