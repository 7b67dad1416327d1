#!/usr/bin/env python3
"""The unseen check of sim/trace/README.md ("An unseen check: the wild traces"), regenerated.

Each row of that table names a file in tests/data/wild_traces, the machine in ccsim's words (--topo) and the
collective; this runs `ccsim compare --model nccl` on it exactly as a user would (shipped default calibration, no
--params; the ranks column goes in as the hint --ranks, which a paste that states its own count ignores) and writes
the two median |busbw error| columns (sizes >= 1 MiB, all sizes). Nothing is fitted to these files: the table says how the tool's best mode fares on outputs it has never been tuned on.

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
ROW = re.compile(r"^\| (?P<file>[^|]+?) \| `(?P<topo>[^`]+)` \| (?P<op>[a-z]+) \| (?P<ranks>\d+) \| [^|]* \| [^|]* \|$")


def pct(v):
    return "-" if v is None else f"{v:.1f} %"


def measured(ccsim, m):
    path = os.path.join(TRACES, m["file"])
    # --ranks is only a hint (used where the paste does not say: sendrecv prints count = size and busbw = algbw)
    rc, out, err = run([ccsim, "compare", "--trace", path, "--model", "nccl", "--format", "json",
                        "--topo", m["topo"], "--op", m["op"], "--ranks", m["ranks"]])
    if rc != 0:
        sys.exit(f"wild_table: {m['file']}: {err or f'exit {rc}'}")
    j = json.loads(out)
    s = (j["runs"][0] if "runs" in j else j)["summary"]
    return s["median_abs_err_pct_ge_1MiB"], s["median_abs_err_pct_all"]


def table(ccsim, text):
    lines = []
    for line in text.split("\n"):
        m = ROW.match(line)
        if m:
            ge, al = measured(ccsim, m.groupdict())
            line = f"| {m['file']} | `{m['topo']}` | {m['op']} | {m['ranks']} | {pct(ge)} | {pct(al)} |"
        lines.append(line)
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
