#!/usr/bin/python3
"""scripts/check_docs.py --figures: a prose figure tagged with its generated source fails the docs check once the
source moves. Each expected value below is read from the source by hand here (a regex of this test's own, or a file
count), never from check_docs.py; a stale figure is injected into a copy of a page.
Usage: docs_figures.py SOURCE_DIR CCSIM"""
import glob, os, re, subprocess, sys, tempfile

src, ccsim = sys.argv[1], sys.argv[2]
check = [sys.executable, os.path.join(src, "scripts/check_docs.py"), "--figures", "--ccsim", ccsim]
failures = []


def run(text):
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
        f.write(text)
    try:
        p = subprocess.run(check + [f.name], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(f.name)
    return p.returncode, p.stdout + p.stderr


def expect(what, text, rc, words=()):
    got_rc, out = run(text)
    if got_rc != rc or any(w not in out for w in words):
        failures.append(f"{what}: exit {got_rc} (wanted {rc}), output:\n{out}")


validation = open(os.path.join(src, "models/VALIDATION.md")).read()
m = re.search(r"middle column over (\d+) runs: median of the per-trace medians ([\d.]+)% \(>= 1 MiB\), ([\d.]+)% "
              r"\(all sizes\); (\d+) of", validation)
runs, ge1, all_, ok = m.groups()
wild_files = len(glob.glob(os.path.join(src, "tests/data/wild_traces/*.txt")))
holdout = re.search(r"\*\*(\d+) of (\d+) strictly unseen", open(os.path.join(src, "models/HOLDOUT.md")).read())

# The current figures pass.
expect("current figures", f"middle column {ge1} %<!-- figure: validation.middle.ge1 --> / {all_} %<!-- figure: "
       f"validation.middle.all -->, {ok}<!-- figure: validation.middle.ok --> of {runs}<!-- figure: validation.runs -->; "
       f"{wild_files}<!-- figure: wild.files --> files; {holdout.group(1)}<!-- figure: holdout.ok --> of "
       f"{holdout.group(2)}<!-- figure: holdout.unseen -->\n", 0)
# A stale one fails, naming the figure, what the page says and what the source gives.
stale_ge1 = f"{float(ge1) + 0.1:.1f}"
expect("stale middle-column median", f"median {stale_ge1} %<!-- figure: validation.middle.ge1 -->\n", 1,
       ["validation.middle.ge1", stale_ge1, ge1])
expect("stale wild file count", f"{wild_files - 4}<!-- figure: wild.files --> real outputs\n", 1,
       ["wild.files", str(wild_files - 4), str(wild_files)])
# The decimals shown are the precision compared: 0.7 for LL 0.726 would be stale at 3 decimals, fine at 1.
ll = re.search(r'"LL": ([\d.]+)', open(os.path.join(src, "models/params-nccl-default.json")).read()).group(1)
expect("LL efficiency, 1 decimal", f"LL {float(ll):.1f}<!-- figure: default.LL -->\n", 0)
expect("LL efficiency, stale", f"LL {float(ll) + 0.2:.3f}<!-- figure: default.LL -->\n", 1, ["default.LL"])
# "About N" with slack: within it passes, outside it fails.
wild_rows = sum(1 for l in open(os.path.join(src, "sim/trace/README.md"))
                if re.match(r"^\| [^|]+? \| `[^`]+` \| [a-z]+ \| \d+ \| [^|]* \| [^|]* \|$", l))
expect("about, within", f"about {wild_rows + 5}<!-- figure: wild.rows ~10% --> rows\n", 0)
expect("about, outside", f"about {wild_rows * 2}<!-- figure: wild.rows ~10% --> rows\n", 1, ["wild.rows"])
# Bad tags: an unknown name, or no number right before the tag.
expect("unknown figure", "5.7 %<!-- figure: validation.middle.median -->\n", 2, ["unknown figure"])
expect("no number", "the median<!-- figure: validation.middle.ge1 -->\n", 2, ["no number"])
# A tag shown as code is an example, not a figure.
expect("tag in code", "write `0.0 %<!-- figure: validation.middle.ge1 -->`, or\n```\n1<!-- figure: nothing.such -->\n```\n", 0)
# The shipped pages are current.
pages = ["README.md", "sim/trace/README.md", "models/README.md", "topologies/README.md", "scripts/BENCHMARKS.md"]
pages += sorted(glob.glob(os.path.join(src, "docs/*.md")))
p = subprocess.run(check + [os.path.join(src, f) if not f.startswith("/") else f for f in pages],
                   capture_output=True, text=True, timeout=120)
if p.returncode != 0:
    failures.append(f"shipped pages: exit {p.returncode}:\n{p.stdout}{p.stderr}")

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
