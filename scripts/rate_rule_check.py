#!/usr/bin/env python3
"""Variants of the protocol rate rule measured on all three checks from ONE set of fits (a benchmark, not a test).

The rate rule (validate_table.py RATE_RULE / RATE_SHARE / RATE_ROWS) decides only which fits vote for a protocol
factor, never the fits themselves, and calibrate records each chosen row's bandwidth share (protocol_use
"shares"), so every variant is a re-vote over the same fits. Per variant this builds the leave-one-class-out sets
(validate_table.py's middle column), the all-class default (written to a temporary file, never over the shipped
models/params-nccl-default.json), and predicts the held-out traces (validate_holdout.py) and the wild table's
rows (wild_table.py) with that default through --params; then it prints, against the first variant, the
medians, the runs within both targets and every run that moved by more than a point.

  python3 scripts/rate_rule_check.py [--cache FILE] off 0.5 0.3 0.2 0.2:2
  (a variant: "off", or SHARE[:ROWS] with the rule on: a fit's factor votes when ROWS (default 3) of its
  chosen rows have a share >= SHARE)
--cache FILE keeps the fits (JSON) between runs; delete it after any change to the traces or the model.
"""
import json, os, statistics, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_table as vt  # noqa: E402
import validate_holdout as vh  # noqa: E402
import wild_table as wt  # noqa: E402
from one_line_errors import write_text  # noqa: E402

CCSIM = "build/ccsim"


def refuse(msg):
    print(f"rate_rule_check.py: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_variant(v):
    if v == "off": return None
    share, _, rows = v.partition(":")
    try:
        s, n = float(share), int(rows or 3)
    except ValueError:
        refuse(f"variant '{v}' is neither 'off' nor SHARE[:ROWS]")
    if not 0 < s <= 1 or n < 1: refuse(f"variant '{v}': SHARE must be in (0, 1] and ROWS >= 1")
    return s, n


def fits(cache):
    rows = vt.entries("models/traces/index.json")
    if cache and os.path.exists(cache):
        try:
            own, votes = json.load(open(cache))
            return rows, ({p: tuple(cj) for p, cj in own.items()}, votes)
        except (OSError, ValueError, TypeError, AttributeError) as e:
            refuse(f"--cache {cache}: not a cache this script wrote ({e}); delete it")
    own = vt.trace_fits(CCSIM, rows, vt.usable_traces(CCSIM, rows), tempfile.mkdtemp(prefix="ccsim-rate-"), cross_validate=False)[0]
    out = (own, vt.launch_votes(CCSIM, rows))
    if cache:
        write_text(cache, json.dumps(out))  # never a partial cache
    return rows, out


def with_params(f):
    """validate_table.run with --params f on every compare that names none (the shipped default otherwise)."""
    def run(cmd):
        return vt.run(cmd + ["--params", f] if "compare" in cmd and "--params" not in cmd else cmd)
    return run


def measure(rows, own_fit, votes, variant):
    rule = parse_variant(variant)
    vt.RATE_RULE = rule is not None
    if rule: vt.RATE_SHARE, vt.RATE_ROWS = rule
    sets, tmp, mid = vt.class_sets(own_fit), tempfile.mkdtemp(prefix="ccsim-rate-"), {}
    for cls in sorted({r[1] for r in rows}):
        doc = vt.class_params([j for c, j in sets.items() if c != cls], f"every class except {cls}", vt.LEAST)
        vt.with_launch_cells(doc, votes, cls)
        f = os.path.join(tmp, f"lomo-{cls}.json")
        open(f, "w").write(json.dumps(doc))
        for label, c, path, args, _ in rows:
            if c == cls: mid[label] = vt.summary(CCSIM, path, args, f)[0]
    doc = vt.default_doc(sets)
    vt.with_launch_cells(doc, votes)
    default = os.path.join(tmp, "default.json")
    open(default, "w").write(json.dumps(doc))
    vh.run = wt.run = with_params(default)
    hold = {r["label"]: (r["ge"], r["all"]) for e in json.load(open(vh.INDEX))["traces"] if not e.get("seen")
            for r in vh.results(CCSIM, e) if "error" not in r}
    wild = {}
    for line in open(wt.README).read().split("\n"):
        m = wt.ROW.match(line)
        if m: wild[f'{m["file"]} ({m["op"]})'] = wt.measured(CCSIM, m.groupdict())
    # The factors for every machine and, per collective library, "<library>:<key>" (validate_table.py library_of).
    factors = dict(doc["params"].get("protocol_efficiency", {}))
    factors.update({f"{lib}:{k}": v for lib, m in doc["params"].get("protocol_efficiency_by_library", {}).items() for k, v in m.items()})
    return {"protocol_efficiency": factors, "middle": mid, "held-out": hold, "wild": wild}


def within(m): return m is not None and (m[0] is None or m[0] <= 5) and m[1] <= 15
def pct(v): return "-" if v is None else f"{v:.1f}"


def compare(base, new, name):
    print(f"=== {name}: protocol factors {json.dumps(new['protocol_efficiency'], sort_keys=True)}")
    for part in ("middle", "held-out", "wild"):
        keys = [k for k in base[part] if base[part][k] is not None and new[part].get(k) is not None]
        med = lambda d, i: statistics.median([d[k][i] for k in keys if d[k][i] is not None])
        print(f"  {part} ({len(keys)} runs): >= 1 MiB {med(base[part], 0):.1f} -> {med(new[part], 0):.1f} %, all sizes "
              f"{med(base[part], 1):.1f} -> {med(new[part], 1):.1f} %; within both targets "
              f"{sum(within(base[part][k]) for k in keys)} -> {sum(within(new[part][k]) for k in keys)}")
        for k in keys:
            a, b = base[part][k], new[part][k]
            dge = b[0] - a[0] if a[0] is not None and b[0] is not None else 0.0
            if abs(dge) > 1 or abs(b[1] - a[1]) > 1:
                print(f"    {'worse ' if dge + b[1] - a[1] > 0 else 'better'} {k}: {pct(a[0])} / {pct(a[1])} -> {pct(b[0])} / {pct(b[1])}")


def main():
    a, cache = sys.argv[1:], None
    if a[:1] == ["--cache"]:
        if len(a) < 2: refuse("--cache needs a file")
        cache, a = a[1], a[2:]
    if not a: refuse("name at least one variant: off, or SHARE[:ROWS] (see the script's docstring)")
    for v in a: parse_variant(v)
    rows, (own_fit, votes) = fits(cache)
    res = {v: measure(rows, own_fit, votes, v) for v in a}
    for v in a[1:]: compare(res[a[0]], res[v], f"{a[0]} -> {v}")
    if len(a) == 1: print(json.dumps(res[a[0]]["protocol_efficiency"], sort_keys=True))


if __name__ == "__main__":
    main()
