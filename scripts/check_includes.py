#!/usr/bin/python3
"""Checks that data flows one way through sim/: no folder includes a folder above it in

  core <- topology <- schedule <- cost <- engine <- metrics/observe/verify <- trace <- model <- scenario <- report <- cli

(a folder may include its own headers and those of any folder to its left; folders of one rank, like
metrics and observe, may not include each other). Also refuses an include of sim/<x>/ for a folder not
in the list, and a quoted include that is not spelled from the source root ("sim/<folder>/...").

  scripts/check_includes.py [-v] [SOURCE_ROOT]     (-v also prints the folder graph found)
Exit status 1, listing each offending file:line, if any include goes the wrong way."""
import pathlib, re, sys

LAYERS = [["core"], ["topology"], ["schedule"], ["cost"], ["engine"], ["metrics", "observe", "verify"], ["trace"],
          ["model"], ["scenario"], ["report"], ["cli"]]
rank = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}
include = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

args = [a for a in sys.argv[1:] if a != "-v"]
root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
sim = root / "sim"
problems, edges = [], set()
for path in sorted(sim.rglob("*")):
    if path.suffix not in (".cpp", ".hpp", ".h") or not path.is_file():
        continue
    folder = path.relative_to(sim).parts[0]
    if folder not in rank:
        problems.append(f"{path.relative_to(root)}: folder sim/{folder} is not in the data-flow order")
        continue
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = include.match(line)
        if not m:
            continue
        target = m.group(1).split("/")
        where = f"{path.relative_to(root)}:{n}"
        if len(target) < 3 or target[0] != "sim":
            problems.append(f'{where}: include "{m.group(1)}" is not spelled "sim/<folder>/..."')
        elif target[1] not in rank:
            problems.append(f"{where}: includes sim/{target[1]}, a folder not in the data-flow order")
        elif target[1] != folder:
            edges.add((folder, target[1]))
            if rank[target[1]] >= rank[folder]:
                problems.append(f"{where}: {folder} includes {target[1]}, which is not below it in the data flow")

if "-v" in sys.argv:
    for a, b in sorted(edges):
        print(f"{a} -> {b}")
for p in problems:
    print(p, file=sys.stderr)
print(f"{len(edges)} folder-to-folder include edges, {len(problems)} against the data flow")
sys.exit(1 if problems else 0)
