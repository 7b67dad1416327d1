#!/usr/bin/env python3
"""Compiles alone (-fsyntax-only) each source file that a unity build compiles after other files, so that a file
which forgot an #include, or uses a neighbour's file-local name, fails here instead of building by luck.

Usage: scripts/check_alone.py BUILD_DIR [--all | --base REF] [--jobs N]

The library, ccsim_cli and test units build as unity units (CMake UNITY_BUILD): each unit #includes up to 8 .cpp
files, and a file then also sees what the files before it in its unit included and defined. Such a file can compile
in the unit and not on its own (rccl_proto_range_test.cpp called topology::resolve_topology without including
topology_json.hpp, for one). This reads BUILD_DIR/compile_commands.json, takes each unity unit's own compile command
(the same compiler, flags and per-library include roots) and runs it on each of the unit's files but its first (the
first sees nothing before it, so the unit's compile already checks it alone).

Which files: by default those changed since the branch left main (git merge-base with origin/main, else main), or on
main itself those its last commit changed (a merge: only the files it changed against every parent, i.e. what
resolving it changed; each merged branch's own files were checked on that branch), at most MAIN_CAP of them in name
order (the rest are named, not checked); and every file not committed yet. `--base REF` compares with REF instead,
`--all` checks every file (a few minutes of CPU on 2 cores). On a fresh clone of main the old window (its last 5
first-parent commits, merges whole) was 16 files, 46 s of CI's CPU (scripts/BENCHMARKS.md, "CI time, eighteenth
session").
Exits 1 naming each file that does not compile alone, 2 on bad usage (or no BUILD_DIR/compile_commands.json),
77 (skipped) outside a git work tree unless --all.
"""
import json, os, re, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

MAIN_CAP = 8  # files checked at most on main itself (~3 s of CPU each)


def usage(msg):
    print(f"check_alone.py: {msg}", file=sys.stderr)
    sys.exit(2)


def git(src, *args):
    p = subprocess.run(["git", "-C", src, *args], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def changed_files(src, base):
    """(absolute paths changed, the most to check or None for all), or None when git cannot say: those changed between
    base and the work tree, or on main itself those of its last commit (the module's docstring)."""
    if git(src, "rev-parse", "--git-dir") is None:
        return None
    last_commit = None  # on main: what its last commit changed, capped
    if base is None:
        head = git(src, "rev-parse", "HEAD")
        for ref in ("origin/main", "main"):
            mb = git(src, "merge-base", "HEAD", ref)
            if mb and mb != head:
                base = mb
                break
            if mb == head:  # on main (or behind it)
                # --cc: a merge's files that differ from every parent; a plain commit's (or the first commit's) files.
                last_commit = git(src, "diff-tree", "--cc", "--root", "--no-commit-id", "--name-only", "-r", "HEAD")
                break
        if base is None and last_commit is None:  # no main to compare with: the last commit
            base = git(src, "rev-parse", "--verify", "-q", "HEAD~1") or head
    if last_commit is not None:
        names = "\n".join(filter(None, [last_commit, git(src, "diff", "--name-only", "HEAD", "--") or ""]))
    else:
        names = git(src, "diff", "--name-only", base, "--")  # committed since base and not committed yet
        if names is None:
            usage(f"--base {base}: git cannot compare with it")
    untracked = git(src, "ls-files", "--others", "--exclude-standard") or ""
    paths = sorted({os.path.realpath(os.path.join(src, n)) for n in (names + "\n" + untracked).split("\n") if n})
    # The cap counts unity-built files only, so main() applies it; none off main.
    return set(paths), (MAIN_CAP if last_commit is not None else None)


def unity_members(unity_file):
    with open(unity_file) as f:
        return re.findall(r'^#include "([^"]+)"', f.read(), re.M)


def alone_command(entry, source):
    """The unit's compile command on one of its files, checking syntax and meaning only (no object written)."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a == "-c" or a == entry["file"] or a.endswith(os.path.basename(entry["file"])):
            continue
        else:
            out.append(a)
    return out + ["-fsyntax-only", source]


def main(argv):
    if not argv or argv[0].startswith("-"):
        usage("expected BUILD_DIR first (a configured build tree)")
    build, rest = argv[0], argv[1:]
    check_all, base, jobs = False, None, os.cpu_count() or 1
    while rest:
        a = rest.pop(0)
        if a == "--all":
            check_all = True
        elif a == "--base" and rest:
            base = rest.pop(0)
        elif a == "--jobs" and rest and re.fullmatch(r"[1-9][0-9]{0,2}", rest[0]):
            jobs = int(rest.pop(0))
        else:
            usage(f"unknown or incomplete option '{a}' (expected --all, --base REF or --jobs N)")
    db = os.path.join(build, "compile_commands.json")
    if not os.path.isfile(db):
        usage(f"{db} not found (BUILD_DIR must be a configured build tree)")
    src = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    wanted, cap = None, None
    if not check_all:
        changed = changed_files(src, base)
        if changed is None:
            print("check_alone.py: not a git work tree: skipped (run with --all to check every file)")
            return 77
        wanted, cap = changed
    todo = []
    for entry in json.load(open(db)):
        if "/Unity/unity_" not in entry["file"]:
            continue
        for source in unity_members(entry["file"])[1:]:
            if wanted is None or os.path.realpath(source) in wanted:
                todo.append((os.path.relpath(source, src), entry["directory"], alone_command(entry, source)))
    todo.sort(key=lambda job: job[0])
    if cap is not None and len(todo) > cap:
        print(f"check_alone.py: main's last commit changed {len(todo)} unity-built files; checking the first {cap}, "
              f"not: {', '.join(job[0] for job in todo[cap:])} (--all checks every file)")
        todo = todo[:cap]

    def run(job):
        name, cwd, cmd = job
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        return name, p.returncode, p.stderr

    failed = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for name, rc, err in pool.map(run, todo):
            if rc != 0:
                failed.append(name)
                print(f"== {name} does not compile alone:\n{err.rstrip()}\n")
    what = "every unity-built file" if check_all else \
        "unity-built files changed since main" if cap is None else "unity-built files main's last commit changed"
    print(f"check_alone.py: {len(todo)} {what} compiled alone, {len(failed)} failed"
          + (": " + ", ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
