#!/usr/bin/python3
"""Re-runs every `$ ccsim ...` / `$ build/ccsim ...` example in the Markdown files and checks that the
output shown is still what ccsim prints: each shown line must appear in the real output, in order (a
block may show an excerpt; a line of "..." marks an elision). With --fix, a block that shows one
command's whole output is rewritten with the new output; stale excerpts are listed for a human.

  scripts/check_docs.py [--fix] [--ccsim build/ccsim] README.md docs/*.md
A `$ PYTHONPATH=build/python <script> ...` example runs the Python module built beside --ccsim; a `$ VAR=value ccsim ...`
example runs ccsim with those variables set.
Exit status 1 if any example is stale (without --fix).

  scripts/check_docs.py --figures [--ccsim build/ccsim] README.md sim/trace/README.md ...
checks the figures prose quotes from a generated source instead of running examples. A figure is tagged with an
HTML comment right after it (invisible on the rendered page), e.g. `median 5.7 %<!-- figure: validation.middle.ge1 -->`;
the number just before the comment must be the source's value printed with the same decimals (`~10%` after the name
allows that much relative slack, for an "about N"). The names are FIGURES below. Exit 1 on a stale figure, 2 on an
unknown name or a tag with no number before it."""
import argparse, glob, json, math, os, re, shlex, statistics, subprocess, sys
from one_line_errors import write_text  # a doc rewritten whole or not at all (this script's folder is on sys.path)
from wild_table import ROW as WILD_ROW  # the wild table's counted rows (a superseded cut is listed, not counted)

ap = argparse.ArgumentParser()
ap.add_argument("--fix", action="store_true")
ap.add_argument("--ccsim", default="build/ccsim")
ap.add_argument("--figures", action="store_true", help="check the tagged prose figures against their sources")
ap.add_argument("files", nargs="+")
args = ap.parse_args()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source(rel):
    return open(os.path.join(ROOT, rel)).read()


def validation(which, field):
    """models/VALIDATION.md's summary lines: the middle column (leave-one-class-out) and the default in-sample."""
    line = {"middle": r"middle column over (\d+) runs: median of the per-trace medians ([\d.]+)% \(>= 1 MiB\), ([\d.]+)% "
                      r"\(all sizes\); (\d+) of \d+ within both targets",
            "default": r"applied in-sample over (\d+) runs .*?: median ([\d.]+)% \(>= 1 MiB\), ([\d.]+)% \(all sizes\); "
                       r"(\d+) of \d+ within both targets"}[which]
    m = re.search(line, source("models/VALIDATION.md"))
    return float(m.group({"runs": 1, "ge1": 2, "all": 3, "ok": 4}[field]))


def holdout(field):
    m = re.search(r"\*\*(\d+) of (\d+) strictly unseen runs within both targets; (\d+) unreadable\.\*\* Median over the "
                  r"readable ones: ([\d.]+) % \(>= 1 MiB\), ([\d.]+) % \(all sizes\)", source("models/HOLDOUT.md"))
    return float(m.group({"ok": 1, "unseen": 2, "ge1": 4, "all": 5}[field]))


def wild(column):
    """The wild table's error columns (sim/trace/README.md) over its counted rows, as scripts/wild_table.py writes them."""
    values = []
    for line in source("sim/trace/README.md").split("\n"):
        if (m := WILD_ROW.match(line)) and m.group(column).strip() != "-":
            values.append(float(m.group(column).split()[0]))
    return values


def three_in_four(values):
    """The smallest error that three in four rows are within."""
    v = sorted(values)
    return v[math.ceil(3 * len(v) / 4) - 1]


def default_param(path):
    value = json.loads(source("models/params-nccl-default.json"))["params"]
    for key in path.split("."):
        value = value[key]
    return float(value)


def ctest_count(*label):
    build = os.path.dirname(os.path.abspath(args.ccsim))
    out = subprocess.run(["ctest", "-N", "--test-dir", build, *label], capture_output=True, text=True).stdout
    return float(re.search(r"Total Tests: (\d+)", out).group(1))


FIGURES = {
    "validation.traces": lambda: len(glob.glob(os.path.join(ROOT, "models/traces/*.txt"))),
    "validation.runs": lambda: validation("middle", "runs"),
    "validation.middle.ge1": lambda: validation("middle", "ge1"),
    "validation.middle.all": lambda: validation("middle", "all"),
    "validation.middle.ok": lambda: validation("middle", "ok"),
    "validation.default.ge1": lambda: validation("default", "ge1"),
    "validation.default.all": lambda: validation("default", "all"),
    "validation.default.ok": lambda: validation("default", "ok"),
    "holdout.files": lambda: len(glob.glob(os.path.join(ROOT, "models/holdout/*.txt"))),
    "holdout.unseen": lambda: holdout("unseen"),
    "holdout.ok": lambda: holdout("ok"),
    "holdout.ge1": lambda: holdout("ge1"),
    "holdout.all": lambda: holdout("all"),
    "wild.files": lambda: len(glob.glob(os.path.join(ROOT, "tests/data/wild_traces/*.txt"))),
    "wild.rows": lambda: len(wild("ge")),
    "wild.median.ge1": lambda: statistics.median(wild("ge")),
    "wild.median.all": lambda: statistics.median(wild("all")),
    "wild.three_in_four.ge1": lambda: three_in_four(wild("ge")),
    "default.LL": lambda: default_param("protocol_efficiency.LL"),
    "default.step_us": lambda: default_param("step_us"),
    "default.launch_per_gpu_us": lambda: default_param("launch_per_gpu_us"),
    "fuzz.harnesses": lambda: len(re.search(r"^all=\(([^)]*)\)", source("scripts/fuzz.sh"), re.M).group(1).split()),
    "tests.count": ctest_count,
    "tests.gxx_only": lambda: ctest_count("-L", "^gxx_only$"),
}
TAG = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)( ?%)?<!-- figure: ([A-Za-z0-9_.]+)(?: ~(\d+)%)? -->")
BARE = re.compile(r"<!-- figure:")


def check_figures(paths):
    stale, bad = 0, 0
    for path in paths:
        # Code (fenced blocks, `inline spans`) shows tags rather than carrying them: blanked, lines kept.
        text = re.sub(r"```.*?```|`[^`\n]*`", lambda c: re.sub(r"[^\n]", " ", c.group(0)), open(path).read(), flags=re.S)
        tagged = set()
        for m in TAG.finditer(text):
            tagged.add(m.start(3))
            line = text.count("\n", 0, m.start()) + 1
            name, shown = m.group(3), m.group(1)
            if name not in FIGURES:
                print(f"{path}:{line}: unknown figure '{name}' (known: {', '.join(FIGURES)})")
                bad += 1
                continue
            try:
                value = float(FIGURES[name]())
            except (AttributeError, KeyError, OSError, subprocess.SubprocessError) as e:
                print(f"{path}:{line}: figure '{name}': its source could not be read ({type(e).__name__}: {e})")
                bad += 1
                continue
            decimals = len(shown.split(".")[1]) if "." in shown else 0
            if m.group(4):
                ok = abs(float(shown.replace(",", "")) - value) <= value * int(m.group(4)) / 100
            else:
                ok = f"{value:.{decimals}f}" == shown.replace(",", "")
            if not ok:
                print(f"{path}:{line}: figure '{name}' says {shown}, its source now gives {value:.{decimals}f}"
                      f"{' (within ' + m.group(4) + ' % allowed)' if m.group(4) else ''}: re-read the sentence, then update it")
                stale += 1
        for m in BARE.finditer(text):
            if m.start() + len("<!-- figure: ") not in tagged:
                print(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: a figure tag with no number right before it")
                bad += 1
    return 2 if bad else (1 if stale else 0)


if args.figures:
    sys.exit(check_figures(args.files))

# A command may start with environment assignments (`$ NCCL_ALGO=Tree ccsim all_reduce_perf ...`), kept as written.
ENV = r"(?:[A-Z_][A-Z0-9_]*=\S* )*"
block = re.compile(r"```[a-z]*\n(\$ (?:" + ENV + r"(?:build/)?ccsim|PYTHONPATH=build/python ).*?)```", re.S)
command = re.compile(r"^\$ (" + ENV + r"(?:build/)?ccsim.*|PYTHONPATH=build/python .*)$")
PYTHON = "PYTHONPATH=build/python "


def run(cmd):
    if cmd.startswith(PYTHON):
        module = os.path.join(os.path.dirname(os.path.abspath(args.ccsim)), "python")
        shell = "PYTHONPATH=" + shlex.quote(module) + " " + cmd[len(PYTHON):]
        return subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=300).stdout
    start = re.match(ENV + r"(?:build/)?ccsim", cmd)
    env = start.group(0)[:len(start.group(0)) - len("ccsim")]
    env = env[:len(env) - len("build/")] if env.endswith("build/") else env
    shell = env + shlex.quote(args.ccsim) + cmd[start.end():]  # may hold a pipe
    head, tail = split_pipe(shell)
    if head not in outputs:  # two excerpts of one command's output run it once (docs/sweep.md's sweep: ~4 s under ASan)
        outputs[head] = subprocess.run(["bash", "-c", head], capture_output=True, text=True, timeout=300).stdout
    if tail is None:
        return outputs[head]
    return subprocess.run(["bash", "-c", tail], input=outputs[head], capture_output=True, text=True, timeout=300).stdout


outputs = {}


def split_pipe(shell):
    """(the ccsim command, the rest of the pipeline after its first unquoted '|', or None)."""
    quote, i = None, 0
    while i < len(shell):
        c = shell[i]
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif shell.startswith("||", i):
            return shell, None  # a list, not a pipe: run as written
        elif c == "|":
            return shell[:i].rstrip(), shell[i + 1:].strip()
        i += 1
    return shell, None


def shown_in_order(want, got):
    lines, i = [l.rstrip() for l in got.splitlines()], 0
    for w in want:
        while i < len(lines) and lines[i] != w:
            i += 1
        if i == len(lines):
            return w
        i += 1
    return None


stale = 0
for path in args.files:
    text = open(path).read()
    pieces, pos = [], 0
    for m in block.finditer(text):
        # A block may hold several commands, each followed by (an excerpt of) its output.
        steps = []
        for line in m.group(1).splitlines():
            if c := command.match(line):
                steps.append((c.group(1), []))
            elif steps and line.strip() and line.strip() not in ("...", "…"):
                steps[-1][1].append(line.rstrip())
        for cmd, want in steps:
            try:
                got = run(cmd)
            except subprocess.TimeoutExpired:
                print(f"{path}: `{cmd}` timed out")
                stale += 1
                continue
            missing = shown_in_order(want, got)
            if missing is None:
                continue
            stale += 1
            whole = len(steps) == 1 and len(want) >= len([l for l in got.splitlines() if l.strip()]) - 2
            if args.fix and whole:
                pieces.append(text[pos:m.start(1)] + f"$ {cmd}\n" + got)
                pos = m.end(1)
                print(f"{path}: `{cmd}` rewritten")
            else:
                print(f"{path}: `{cmd}` is stale; this line is not in its output (in order):\n    {missing[:150]}")
    if args.fix and pieces:
        write_text(path, "".join(pieces) + text[pos:])
sys.exit(1 if stale and not args.fix else 0)
