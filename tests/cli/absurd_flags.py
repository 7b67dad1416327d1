#!/usr/bin/env python3
"""Every flag of every subcommand under absurd values (the house rule on bad input, issue 14).

The flags are read from CLI11's --help of each (sub)command, so a flag added tomorrow is swept without
editing this file; a subcommand without a base command line below fails the test. Each flag is put on a
small valid command line of its subcommand (checked to succeed first) with values such as -1, 1e308, nan,
2^64, '', a unit-less number, an unknown name, a missing path, a directory and a null device. Accepted:
exit 0 with no nan/inf/negative time in the output, or exit 2 with exactly one stderr line naming the flag
(or the file) and no file left behind. Anything else (a signal, another status, several lines, a timeout,
a sanitizer report, a leftover file) is a failure.

usage: absurd_flags.py CCSIM SOURCE_DIR [SANITIZED(0|1)] [-v]
"""
import concurrent.futures
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

CCSIM = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
SANITIZED = len(sys.argv) > 3 and sys.argv[3] == "1"
VERBOSE = "-v" in sys.argv
# Seconds per run: ASan+UBSan run several times slower; 10 s idle-sized timed out a --plot run (python3 +
# matplotlib, ~2.2 s idle) in three full suites at load 10-12 on a shared 2-core machine. A hang still fails.
TIMEOUT = 60 if SANITIZED else 30
TRACE = f"{SRC}/models/traces/dgx1-v100-8gpu-allreduce-konnase.txt"

# A small valid command line per subcommand (path after `ccsim`); {fx} = the fixtures folder. Positionals
# are swept too: POSITIONAL names the index of each one's value in the base.
BASE = {
    (): ["--topo", "dgx1", "-b", "1K", "-e", "4K"],
    ("bench",): ["--topo", "crossbar:ranks=8,bw=10GB/s,alpha=1us", "-n", "1M"],
    ("explain",): ["--min", "1K", "--max", "4K"],
    ("scenario",): [f"{SRC}/scenarios/lm300m_dgx1.json"],
    ("rings",): ["--topo", "dgx1", "-n", "1M", "--top", "2"],
    ("compare",): ["--topo", "dgx1-v100", "--trace", TRACE],
    # Rows from 32 KiB: 13 of the trace's 25, still enough for both held-out folds, so every flag still goes through
    # the fit and the cross-validation; each accepted run fits ~2.5x faster (under ASan 2.4 -> 0.9 s of CPU; calibrate
    # was ~30 % of this test's sanitized time, scripts/BENCHMARKS.md "CI time, thirteenth session").
    ("calibrate",): ["--topo", "dgx1-v100", "--trace", TRACE, "-o", "fit.json", "--min-size", "32K"],
    ("sweep",): ["{fx}/plan.json"],
    ("topo",): None,  # only subcommands
    ("topo", "show"): ["dgx1"],
    ("topo", "gen"): ["crossbar", "--ranks", "4"],
    ("topo", "import"): [f"{SRC}/tests/data/import/b200-gke-a4-topo-m-dranet.txt", "--gpu", "b200"],
    ("topo", "export"): ["dgx1", "--nccl-xml"],
    ("topo", "list"): [],
    ("all_reduce_perf",): ["-b", "1K", "-e", "4K", "-g", "8", "--topo", "dgx1"],
    ("all_gather_perf",): ["-b", "1K", "-e", "4K", "-g", "8", "--topo", "dgx1"],
}
# Flags a base above refuses by its nature (a data-parallel scenario has no step timeline) swept again on a
# second base that reads them: (command path, base, flags). The hybrid base is one 8-GPU machine (tp 2, pp 2, dp 2,
# written by main): the shipped 128-GPU Megatron row took ~7 s of CPU a run under ASan for the same flag checks.
EXTRA = [(("scenario",), ["{fx}/hybrid.json"], {"--timeline"})]
POSITIONAL = {("scenario",): {"file": 0}, ("sweep",): {"plan": 0}, ("topo", "show"): {"name": 0},
              ("topo", "gen"): {"kind": 0}, ("topo", "import"): {"file": 0}, ("topo", "export"): {"name": 0}}
# Outputs that print times (compare/calibrate print signed errors, so only nan/inf are checked there).
TIMED = {(), ("bench",), ("explain",), ("scenario",), ("rings",), ("all_reduce_perf",), ("all_gather_perf",)}

# An unknown name ('nosuchname') must be refused unless the flag names a file to write, and an exit 2 must
# name the flag or file. The exceptions to either, each with its reason:
# (command path or "*", flag, value or None = every value) -> reason. Keep it short.
ALLOW = {
    ("*", "--output_file", "nosuchname"): "nccl-tests' -J result file: accepted as nccl-tests does, never written",
}

# Flags whose exit status 1 is a documented verdict, not a failure: judged as exit 0 (sane output) otherwise.
EXIT_ONE = {
    (("compare",), "--summary"): "compare's summary exits 1 when a run is below --healthy (the base trace is, under fifo)",
}

NODIR = "no/such/dir/out.txt"
VALUES = ["-1", "0", "1e308", "-1e308", "nan", "inf", "18446744073709551616", "9223372036854775807",
          "4294967296", "", "x", "1K1", "1e3G", "999999999999T", "25", "nosuchname",
          "{work}/does-not-exist.json", "{work}/adir", "{null}"]
HUGE = {"1e308", "inf", "18446744073709551616", "9223372036854775807", "999999999999T"}


def can_mknod():
    d = tempfile.mkdtemp()
    try:
        os.mknod(f"{d}/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        return True
    except OSError:
        return False
    finally:
        shutil.rmtree(d)


CAN_MKNOD = can_mknod()


def run(argv, cwd, timeout=TIMEOUT):
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


OPT = re.compile(r"^  (-[\w-]+(?:,-[\w-]+)*)(?: (?!REQUIRED\b)([A-Z]+(?::[A-Z]+)?)(?:=(\S*))?)?( \.\.\.)?")
POS = re.compile(r"^  (\w[\w-]*) ([A-Z]+)")


def parse_help(path):
    """(options, positionals, subcommands) of `ccsim PATH --help`; an option = (names, takes_value, desc)."""
    rc, out, err = run([CCSIM, *path, "--help"], cwd=None)
    if rc != 0:
        sys.exit(f"FAIL: ccsim {' '.join(path)} --help -> {rc}: {err.strip()}")
    opts, pos, subs, section = [], [], [], None
    for line in out.splitlines():
        if re.match(r"^\S.*:$", line):
            section = line[:-1]
            continue
        if not line.strip():
            if section == "Subcommands":
                section = None
            continue
        if section == "Options":
            m = OPT.match(line)
            if m:
                names = m.group(1).split(",")
                if "--help" not in names:
                    opts.append([names, m.group(2) is not None, line[m.end():].strip()])
            elif opts and line.startswith("    "):
                opts[-1][2] += " " + line.strip()  # the description on the next line
        elif section == "Positionals":
            m = POS.match(line)
            if m:
                pos.append(m.group(1))
        elif section == "Subcommands":
            m = re.match(r"^  (\w[\w-]*)\s", line)
            if m:
                subs.append(m.group(1))
    return opts, pos, subs, out


def is_output(desc):
    d = desc.lower()
    return "not written" not in d and bool(re.search(r"\bwrite\b|\boutput file\b|\binto this\b", d))


def commands():
    """Every (sub)command path with its options: the help tree, plus nccl-tests mode's *_perf names."""
    found, todo = [], [()]
    while todo:
        path = todo.pop(0)
        opts, pos, subs, text = parse_help(path)
        found.append((path, opts, pos))
        todo += [path + (s,) for s in subs]
        if path == ():
            todo += [(p,) for p in dict.fromkeys(re.findall(r"\b(\w+_perf)\b", text))]
    return found


def subst(tokens, fx, null, work="$WORK"):
    return [t.replace("{fx}", fx).replace("{null}", null).replace("{work}", work) for t in tokens]


def case_argv(path, base, flag_names, takes_value, value, positional_index):
    argv = list(base)
    if positional_index is not None:
        argv[positional_index] = value
        return argv
    present = next((i for i, t in enumerate(argv) if t in flag_names), None)
    if present is not None and takes_value:
        argv[present + 1] = value
        return argv
    if present is not None:
        del argv[present]
    name = next((n for n in flag_names if n.startswith("--")), flag_names[0])
    if value is None:
        return argv + [name]
    return argv + [f"{name}={value}"] if name.startswith("--") else argv + [name, value]


BAD_NUMBER = re.compile(r"(?<![\w.])-?(nan|inf|infinity)(?![\w])", re.I)
NEGATIVE = re.compile(r"(?<![\w.:/-])-\d+\.\d+")
# A count or size near 2^64 (or a time of 1e18 and more) is a wrapped value, not a result.
WRAPPED = re.compile(r"(?<![\w.])(\d{19,}|\d(\.\d+)?e\+(1[89]|[2-9]\d|\d{3}))(?![\w.])", re.I)


def check(case):
    """None when the outcome is acceptable, else a one-line description of what went wrong."""
    path, flag_names, value, argv, fx, is_out = case
    # Each run has a folder of its own as its working directory: relative outputs, the missing path and the
    # directory values all land there, so after an error it must hold nothing new.
    work = tempfile.mkdtemp(dir=fx, prefix="run-")
    os.mkdir(os.path.join(work, "adir"))
    null = os.path.join(work, "null")
    has_null = "{null}" in " ".join(argv)
    if has_null and CAN_MKNOD:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    elif has_null:
        null = "/dev/null"  # read-only use: output flags do not get this value without a private node
    argv = subst(argv, fx, null, work)
    rc, out, err = run([CCSIM, *path, *argv], cwd=work)
    left = sorted(set(os.listdir(work)) - {"null", "adir"}) + sorted(os.listdir(os.path.join(work, "adir")))
    broken_null = has_null and not stat.S_ISCHR(os.stat(null).st_mode if null == "/dev/null" else os.lstat(null).st_mode)
    shutil.rmtree(work)
    shown = value if value is None else subst([value], fx, null, work)[0]
    return judge(path, flag_names, value, shown, is_out, (rc, out, err), left, broken_null)


def judge(path, flag_names, value, shown, is_out, result, left, broken_null):
    """The house rule applied to one run's (status, stdout, stderr): None when right, else what went wrong."""
    rc, out, err = result
    if rc == 1 and any(p == path and f in flag_names for (p, f) in EXIT_ONE):
        rc = 0
    lines = err.splitlines()
    what = None
    if re.search(r"runtime error:|Sanitizer", err):
        what = "sanitizer report: " + next(l for l in lines if re.search(r"runtime error:|Sanitizer", l))
    elif rc == "timeout":
        what = f"no answer in {TIMEOUT} s"
    elif broken_null:
        what = "replaced the null device it was given"
    elif rc == 0 and flag_names == ["(base)"] and not out.strip():
        what = "exit 0 printing nothing (every base command prints its result)"
    elif rc == 0:
        # A comment line echoing the flag and its value (nccl-tests mode's "accepted: -J nan") is not a result.
        body = "\n".join(l for l in out.splitlines() if not (l.startswith("#") and any(n in l for n in flag_names)))
        m = BAD_NUMBER.search(body) or (path in TIMED and (NEGATIVE.search(body) or WRAPPED.search(body)))
        if m:
            line = next(l for l in body.splitlines() if m.group(0) in l)
            what = f"exit 0 with '{m.group(0)}' in the output: {line.strip()[:120]}"
        elif value == "nosuchname" and not is_out and not allowed(path, flag_names, value):
            what = "exit 0: an unknown name accepted (silently ignored?)"
        elif VERBOSE and (value in HUGE or value == "nosuchname"):
            print(f"note: exit 0: ccsim {' '.join(path)} {flag_names[-1]}={value}")
    elif rc == 2:
        # A flag's line names the flag, or the file it was given; a positional's names its value.
        positional = not flag_names[0].startswith("-")
        named = any(n in err for n in flag_names) or (shown and "/" in shown and shown in err) or (
            positional and names_value(err, shown))
        if len(lines) != 1:
            what = f"exit 2 with {len(lines)} stderr lines: {' | '.join(lines[:3])[:200]}"
        elif not named and not allowed(path, flag_names, value):
            what = f"exit 2 without naming {flag_names[-1]}: {lines[0][:160]}"
        elif left:
            what = f"exit 2 left {left} behind"
        elif out.strip():
            what = f"exit 2 after printing to stdout: {out.strip().splitlines()[0][:120]}"
    else:
        what = f"exit {rc}: {' | '.join(lines[-3:])[:200]}"
    return what


def names_value(err, value):
    """The line names the value itself: a file, or a positional's word (quoted or between separators)."""
    if value is None:
        return False
    if value == "":
        return "''" in err
    return re.search(r"(^|[\s'\"])" + re.escape(value) + r"($|[\s'\":])", err) is not None


def allowed(path, flag_names, value):
    for (p, f, v), _reason in ALLOW.items():
        if p in (path, "*") and f in flag_names and (v is None or v == value):
            return True
    return False


def sample(key, values, share):
    """A deterministic share of the values (all when share is 1): those whose hash with the flag falls low."""
    if share >= 1:
        return values
    keep = [v for v in values if int(hashlib.sha1(f"{key}|{v}".encode()).hexdigest(), 16) % 100 < share * 100]
    return keep or values[:1]


def build_cases(fx, fails):
    """Every (command, flag or positional, value) run, on its command's base; problems go to `fails`."""
    cases = []
    tree = commands()
    # Every command with a base here must be one --help still lists: a --help that lost its subcommands (or prints
    # nothing at all) would otherwise sweep nothing and pass.
    listed = {path for path, _opts, _pos in tree}
    fails += [f"ccsim {' '.join(p)}: has a base command line here but `ccsim --help` no longer lists it" for p in BASE if p not in listed]
    for path, opts, pos in tree:
        if path not in BASE:
            fails.append(f"ccsim {' '.join(path)}: no base command line in {sys.argv[0]}: add one")
            continue
        if BASE[path] is None:
            continue
        base = BASE[path]
        probe = check((path, ["(base)"], None, base, fx, False))
        if probe:
            fails.append(f"base command ccsim {' '.join(path)} {' '.join(base)}: {probe}")
            continue
        share = 0.3 if SANITIZED else 1
        for names, takes_value, desc in opts:
            out = is_output(desc)
            if not takes_value:
                for v in (None, "x"):
                    cases.append((path, names, v, case_argv(path, base, names, False, v, None), fx, out))
                continue
            # A null device for an output flag is a private node (mknod, root only): never the real one,
            # which an atomic rename would replace.
            values = [v for v in VALUES if CAN_MKNOD or not out or v != "{null}"] + ([NODIR] if out else [])
            for v in sample(f"{path}{names}", values, share):
                cases.append((path, names, v, case_argv(path, base, names, True, v, None), fx, out))
        for name in pos:
            index = POSITIONAL.get(path, {}).get(name)
            if index is None:
                fails.append(f"ccsim {' '.join(path)}: positional '{name}' has no index in POSITIONAL")
                continue
            for v in sample(f"{path}{name}", VALUES, share):
                cases.append((path, [name], v, case_argv(path, base, [name], True, v, index), fx, False))
    for path, base, flags in EXTRA:
        probe = check((path, ["(base)"], None, base, fx, False))
        if probe:
            fails.append(f"base command ccsim {' '.join(path)} {' '.join(base)}: {probe}")
            continue
        for names in flags:
            values = [v for v in VALUES if CAN_MKNOD or v != "{null}"] + [NODIR]
            for v in sample(f"{path}{names}+", values, 0.3 if SANITIZED else 1):
                cases.append((path, [names], v, case_argv(path, base, [names], True, v, None), fx, True))
    return cases


def main():
    fx = tempfile.mkdtemp(prefix="ccsim-absurd-")
    try:
        with open(f"{fx}/plan.json", "w") as f:
            f.write('{"points": [{"topo": "dgx1", "b": "1K", "e": "4K"}]}\n')
        with open(f"{fx}/hybrid.json", "w") as f:
            f.write('{"name": "tp2-pp2-dp2", "transformer": {"layers": 2, "hidden": 1024, "heads": 16, "seq": 512, "micro_batch": 1, '
                    '"vocab": 1000}, "parallel": {"tp": 2, "pp": 2, "dp": 2, "global_batch": 8}, "topology": "machine:gpu=a100,gpus=8"}\n')
        fails = []
        cases = build_cases(fx, fails)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for case, what in zip(cases, pool.map(check, cases)):
                if what:
                    path, names, value, argv = case[:4]
                    shown = "(no value)" if value is None else repr(value)
                    fails.append(f"ccsim {' '.join(path)} {names[-1]} {shown}: {what}\n"
                                 f"    ccsim {' '.join((*path, *subst(argv, '$FX', '$WORK/null')))}")
        for f in fails:
            print("FAIL:", f)
        print(f"absurd_flags: {len(cases)} runs, {len(fails)} failures")
        return 1 if fails else 0
    finally:
        shutil.rmtree(fx, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
