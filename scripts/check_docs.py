#!/usr/bin/python3
"""Re-runs every `$ ccsim ...` / `$ build/ccsim ...` example in the Markdown files and checks that the
output shown is still what ccsim prints: each shown line must appear in the real output, in order (a
block may show an excerpt; a line of "..." marks an elision). With --fix, a block that shows one
command's whole output is rewritten with the new output; stale excerpts are listed for a human.

  scripts/check_docs.py [--fix] [--ccsim build/ccsim] README.md docs/*.md
A `$ PYTHONPATH=build/python <script> ...` example runs the Python module built beside --ccsim; a `$ VAR=value ccsim ...`
example runs ccsim with those variables set.
Exit status 1 if any example is stale (without --fix)."""
import argparse, os, re, shlex, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--fix", action="store_true")
ap.add_argument("--ccsim", default="build/ccsim")
ap.add_argument("files", nargs="+")
args = ap.parse_args()

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
        open(path, "w").write("".join(pieces) + text[pos:])
sys.exit(1 if stale and not args.fix else 0)
