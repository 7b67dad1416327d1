#!/usr/bin/env python3
"""Is every fitted parameter set in models/ current? (the ctest fits_current; cheap: no fitting.)

Each models/fit-*.json records the command that made it and, per trace row, the measured time and the time
its fitted parameters predicted (`residuals`). This re-predicts those rows with the current binary,
`ccsim compare --params FILE` on the same traces and machines, and fails when a prediction (or a measured
time) differs from the recorded one beyond the file's rounding: the model, the machine presets or the trace
changed since the fit was made, so its parameters (and the in-sample / held-out figures quoted from it) are
stale. Fix: run scripts/refit.sh. It also fails when an nccl-tests trace of models/traces/index.json has no
machine fit models/fit-nccl-machine-<trace>.json, or one whose recorded command is not the one refit.sh would
run now (index.json changed); --plan prints refit.sh's commands (the one rule lives here).

A fit that matches can still be a worse optimum than a new fit would find only if the fitter itself changed;
that is not checked here (it would cost a refit: minutes).

Usage: scripts/check_fits.py [--ccsim PATH] [--no-index] [FILE...] | --plan   (default: every models/fit-*.json)
"""
import glob, json, os, shlex, subprocess, sys

# Flags of `ccsim calibrate` that steer the fit, not the prediction (with how many values each takes).
FIT_ONLY = {"--fit-protocols": 0, "--hold": 1, "-o": 1, "--output": 1, "--run": 1}
REL, ABS = 1e-6, 2e-6  # predicted_us is written with 6 decimals; measured times as the trace prints them


def compare_args(doc):
    """One `ccsim compare` argument list per recorded input, from the recorded calibrate command."""
    argv = shlex.split(doc["command"])
    if argv[:2] != ["ccsim", "calibrate"]:
        raise ValueError("recorded command is not 'ccsim calibrate ...'")
    argv, common, i = argv[2:], [], 0
    topos, traces = [], []
    while i < len(argv):
        a = argv[i]
        if a in FIT_ONLY:
            i += 1 + FIT_ONLY[a]
            continue
        if a in ("--topo", "--trace"):
            (topos if a == "--topo" else traces).append(argv[i + 1])
            i += 2
            continue
        common.append(a)
        i += 1
    if len(topos) != len(traces) or len(traces) != len(doc["inputs"]):
        raise ValueError("recorded command's --topo/--trace pairs do not match its inputs")
    per_input = {"--gpus", "--ranks"}
    if len(traces) > 1 and any(a in per_input for a in common):
        raise ValueError("cannot re-predict: --gpus/--ranks in a command of several traces")
    return [["compare", "--topo", t, "--trace", tr, "--format", "json"] + common for t, tr in zip(topos, traces)]


def close(a, b):
    return abs(a - b) <= max(ABS, REL * max(abs(a), abs(b)))


def check(ccsim, path):
    """Problems with one fit file (empty: current)."""
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:  # not a fit file at all: bad input, not a stale fit
        print(f"check_fits.py: {path}: cannot read: {e}", file=sys.stderr)
        sys.exit(2)
    try:
        runs = compare_args(doc)
    except (ValueError, KeyError, TypeError, IndexError) as e:
        return [f"{path}: {e}"]
    problems = []
    for k, args in enumerate(runs):
        p = subprocess.run([ccsim] + args + ["--params", path], capture_output=True, text=True)
        if p.returncode != 0:
            err = p.stderr.strip().splitlines()
            return [f"{path}: input {k}: ccsim compare failed: {err[-1] if err else p.returncode}"]
        rows = json.loads(p.stdout)["rows"]
        recorded = [r for r in doc["residuals"] if r["trace"] == k]
        if len(rows) != len(recorded):
            problems.append(f"{path}: input {k}: {len(rows)} rows now, {len(recorded)} recorded")
            continue
        for now, then in zip(rows, recorded):
            if now["size"] != then["size"] or not close(now["measured_time_us"], then["measured_us"]):
                problems.append(f"{path}: input {k}: the trace changed at size {then['size']}")
                break
            if not close(now["predicted_time_us"], then["predicted_us"]):
                problems.append(f"{path}: input {k}: size {then['size']} predicts {now['predicted_time_us']:.6f} us, "
                                f"the fit recorded {then['predicted_us']:.6f} us")
                break
    return problems


def timed_sizes(path):
    """Sizes of the timed rows of an nccl-tests output (lines of numbers after the headers; both formats start
    with the size; srun's `0: ` prefix dropped)."""
    sizes = []
    for line in open(path).read().splitlines():
        f = line.split()
        if f and f[0] == "0:":
            f = f[1:]
        if len(f) >= 6 and not line.lstrip().startswith("#") and f[0].isdigit() and f[1].isdigit():
            sizes.append(int(f[0]))
    return [s for s in sizes if s > 0]


def machine_plan(index="models/traces/index.json"):
    """scripts/refit.sh's one rule for every nccl-tests trace: (calibrate arguments with -o, output file) or
    (None, reason it is not fitted). The same for all: --fit-protocols when the trace has at least 16 timed rows
    (else too few for 6 parameters); --hold launch_us,step_us when its smallest size is >= 1 MiB (the sweep
    cannot see latency)."""
    out = []
    for e in json.load(open(index))["traces"]:
        if e.get("kind") != "nccl-tests":
            continue
        path = os.path.join("models/traces", e["file"])
        fit = "models/fit-nccl-machine-" + os.path.splitext(e["file"])[0] + ".json"
        if e.get("runs"):  # a scaling study: one fit per run (validate_table.py does that), not one per file
            out.append((None, fit, "several runs in one file"))
            continue
        timed = timed_sizes(path)
        if len(timed) < 4:  # calibrate refuses fewer than 4 points for even one free parameter
            out.append((None, fit, f"{len(timed)} timed rows, calibrate needs at least 4"))
            continue
        args = ["--model", "nccl", "--topo", e["topology"], "--trace", path]
        if e.get("gpus"): args += ["--gpus", e["gpus"]]
        if e.get("ranks"): args += ["--ranks", str(e["ranks"])]
        if e.get("arch"): args += ["--gpu-arch", e["arch"]]
        # What the run used where its file does not say (validate_table.py applies the same): NCCL_ALGO, the release.
        if e.get("algo"): args += ["--nccl-algo", e["algo"]]
        if e.get("nccl_version"): args += ["--nccl-version", e["nccl_version"]]
        if len(timed) >= 16: args.append("--fit-protocols")
        if min(timed) >= 1 << 20: args += ["--hold", "launch_us,step_us"]
        out.append((args + ["-o", fit], fit, ""))
    return out


def plan_problems():
    """Machine fits refit.sh would make that are missing, or whose recorded command is no longer the one it
    would run (index.json's topology, ranks or rows changed)."""
    problems = []
    for args, fit, _ in machine_plan():
        if args is None:
            continue
        if not os.path.exists(fit):
            problems.append(f"{fit}: missing")
            continue
        try:
            recorded = shlex.split(json.load(open(fit))["command"])[2:]
        except (OSError, ValueError, KeyError):
            recorded = None
        if recorded != args:
            problems.append(f"{fit}: its recorded command is not the one refit.sh runs now: "
                            f"ccsim calibrate {shlex.join(args)}")
    return problems


def main(argv):
    ccsim, files, use_index = "build/ccsim", [], True
    i = 0
    while i < len(argv):
        if argv[i] == "--ccsim" and i + 1 < len(argv):
            ccsim, i = argv[i + 1], i + 2
        elif argv[i] == "--no-index":
            use_index, i = False, i + 1
        elif argv[i] == "--plan":  # refit.sh's input: one line of calibrate arguments per machine fit
            for args, fit, why in machine_plan():
                if args is None:
                    print(f"refit: skipped {fit}: {why}", file=sys.stderr)
                else:
                    print(shlex.join(args))
            return 0
        elif argv[i].startswith("-"):
            print(f"check_fits.py: unknown argument '{argv[i]}'", file=sys.stderr)
            return 2
        else:
            files.append(argv[i]); i += 1
    if not os.access(ccsim, os.X_OK):
        print(f"check_fits.py: {ccsim} not built", file=sys.stderr)
        return 2
    if not files:
        files = sorted(glob.glob("models/fit-*.json"))
    problems = []
    for f in files:
        problems += check(ccsim, f)
    if use_index:
        problems += plan_problems()
    for p in problems:
        print(p)
    if problems:
        print(f"check_fits.py: {len(problems)} fit(s) stale or missing: run scripts/refit.sh")
        return 1
    print(f"check_fits.py: {len(files)} fits current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
