#!/usr/bin/env python3
"""The unseen check of sim/trace/README.md ("An unseen check: the wild traces"), regenerated.

Each row of that table names a file in tests/data/wild_traces, the machine in ccsim's words (--topo) and the
collective; this runs `ccsim compare --model nccl` on it exactly as a user would (shipped default calibration, no
--params; the ranks column goes in as the hint --ranks, which a paste that states its own count ignores) and writes
the two median |busbw error| columns (sizes >= 1 MiB, all sizes). Nothing is fitted to these files: the table says how the tool's best mode fares on outputs it has never been tuned on.
Each measurement counts once: a file whose measured rows are all rows of another row's file (a page cut to a few rows
beside its whole sweep, both kept as copies of what was published) goes in the small table under the main one with a
"superseded by" column; it is regenerated and listed, its reason printed, but stays out of the medians, the counts
(scripts/check_docs.py's wild.* figures) and models/evidence.json, which read the main table's rows only.

--write rewrites the table in place, then models/evidence.json (scripts/evidence.py, from the rows of this table,
models/VALIDATION.md and models/HOLDOUT.md: run it after those); --check exits 1 when the table differs from what this run gives (the model
or the default calibration changed since: rerun with --write and say what moved).
"""
import argparse, json, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validate_table import run  # noqa: E402  (one subprocess helper for every benchmark)
from one_line_errors import write_text  # noqa: E402

README = "sim/trace/README.md"
TRACES = "tests/data/wild_traces"
# A counted row: the medians, the counts (scripts/check_docs.py's wild.* figures) and models/evidence.json read these.
ROW = re.compile(r"^\| (?P<file>[^|]+?) \| `(?P<topo>[^`]+)` \| (?P<op>[a-z]+) \| (?P<ranks>\d+) \| (?P<ge>[^|]*) \| (?P<all>[^|]*) \|$")
# A row listed but not counted: the same measurement as the counted row of the file it names (SUPERSEDED's `by`).
SUPERSEDED = re.compile(r"^\| (?P<file>[^|]+?) \| `(?P<topo>[^`]+)` \| (?P<op>[a-z]+) \| (?P<ranks>\d+) \| (?P<by>[^|`]+?\.txt) \| "
                        r"[^|]* \| [^|]* \|$")


def pct(v):
    return "-" if v is None else f"{v:.1f} %"


def compare(ccsim, m):
    """`ccsim compare` on one row, as a user runs it: its JSON run (summary and measured rows)."""
    path = os.path.join(TRACES, m["file"])
    # --ranks is only a hint (used where the paste does not say: sendrecv prints count = size and busbw = algbw)
    rc, out, err = run([ccsim, "compare", "--trace", path, "--model", "nccl", "--format", "json",
                        "--topo", m["topo"], "--op", m["op"], "--ranks", m["ranks"]])
    if rc != 0:
        sys.exit(f"wild_table: {m['file']}: {err or f'exit {rc}'}")
    j = json.loads(out)
    return j["runs"][0] if "runs" in j else j


def errors(j):
    s = j["summary"]
    return s["median_abs_err_pct_ge_1MiB"], s["median_abs_err_pct_all"]


def measured(ccsim, m):
    return errors(compare(ccsim, m))


def points(j):
    """The measurement a file holds: its measured rows as (size, time), the numbers nccl-tests printed."""
    return {(r["size"], r["measured_time_us"]) for r in j["rows"]}


def table(ccsim, text, say=print):
    """The text with both tables' error columns rewritten. A measurement counts once: a file whose measured rows
    are all rows of another file of the table (a page's cut beside its whole sweep) is listed under SUPERSEDED,
    naming that file, and stays out of the counted rows (the medians, the counts, models/evidence.json); two
    counted rows sharing measured rows, or a superseded row whose rows are not all in the file named, are refused."""
    lines, counted, cut = [], {}, []
    for line in text.split("\n"):
        m, c = ROW.match(line), SUPERSEDED.match(line)
        if m:
            j = compare(ccsim, m.groupdict())
            counted[m["file"]] = (m, points(j))
            ge, al = errors(j)
            line = f"| {m['file']} | `{m['topo']}` | {m['op']} | {m['ranks']} | {pct(ge)} | {pct(al)} |"
        elif c:
            j = compare(ccsim, c.groupdict())
            cut.append((c, points(j)))
            ge, al = errors(j)
            line = (f"| {c['file']} | `{c['topo']}` | {c['op']} | {c['ranks']} | {c['by']} | {pct(ge)} | {pct(al)} |")
        lines.append(line)
    rows = sorted(counted.items())
    for i, (fa, (ma, pa)) in enumerate(rows):
        for fb, (mb, pb) in rows[i + 1:]:
            same = pa & pb  # two rows at least: one size at one time can be two runs' shared latency floor
            if (ma["op"], ma["ranks"]) == (mb["op"], mb["ranks"]) and len(same) >= 2:
                sys.exit(f"wild_table: {README}: {fa} and {fb} hold the same {len(same)} measured rows: the measurement "
                         "would count twice; move the cut one under the superseded table, naming the other")
    for c, p in cut:
        if c["by"] not in counted:
            sys.exit(f"wild_table: {README}: {c['file']} is superseded by {c['by']}, which is not a counted row of the table")
        by, missing = counted[c["by"]][0], p - counted[c["by"]][1]
        if not p or missing or (c["op"], c["ranks"]) != (by["op"], by["ranks"]):
            sys.exit(f"wild_table: {README}: {c['file']} is not a cut of {c['by']}: " +
                     (f"{len(missing)} of its {len(p)} measured rows are not there" if missing else
                      "it has no measured rows" if not p else "another op or rank count"))
        say(f"wild_table: {c['file']}: listed, not counted: its {len(p)} measured rows are rows of {c['by']}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ccsim", default="build/ccsim")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help=f"rewrite the table in {README}")
    g.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    a = ap.parse_args()
    old = open(README).read()
    if not any(ROW.match(l) for l in old.split("\n")):
        sys.exit(f"wild_table: {README}: no table rows found")
    new = table(a.ccsim, old)
    if a.check:
        if new != old:
            sys.exit(f"wild_table: {README} is stale: run python3 scripts/wild_table.py --write and say what moved")
        return
    write_text(README, new)
    # The checked line's runs (models/evidence.json) come from this table's rows and the other two generated
    # tables': the last of the regeneration commands (README "Where a prediction is checked") refreshes them.
    import evidence  # noqa: E402
    evidence.write(a.ccsim)


if __name__ == "__main__":
    main()
