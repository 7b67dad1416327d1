#!/usr/bin/env python3
"""Loads a ccsim --timeline trace into a real viewer's parser: the trace engine of Chrome DevTools'
Performance panel, as bundled in Debian's Chromium, driven headless over the DevTools protocol (pipe
transport: no network, no port). Checks that every slice we wrote lands in the viewer's call tree of
the track we put it on (the viewer silently drops a slice that partially overlaps another), that
tracks keep their names, and that the viewer's time bounds lie within the run.

Exit status: 0 pass, 1 fail, 77 skipped (no Chromium; `apt-get install chromium` to run it).
Usage: trace_viewer_check.py TRACE.json
"""
import json
import signal
import sys
import time
from collections import Counter

from chromium_pipe import SKIP, Chrome, browser

# Runs inside DevTools: parse with the Performance panel's model, report each thread's tree.
PARSE_JS = """(async () => {
  const T = await import('./models/trace/trace.js');
  const model = T.TraceModel.Model.createWithAllHandlers();
  await model.parse(TRACE.traceEvents, {metadata: {}, isFreshRecording: false});
  const d = model.parsedTrace(0).data;
  const threads = [];
  const count = (n) => 1 + [...n.children].reduce((s, c) => s + count(c), 0);
  for (const [pid, p] of d.Renderer.processes)
    for (const [tid, t] of p.threads)
      threads.push({pid, tid, name: t.name, entries: t.entries.length,
                    in_tree: t.tree ? [...t.tree.roots].reduce((s, r) => s + count(r), 0) : 0});
  return JSON.stringify({generic: d.Meta.traceIsGeneric, bounds: d.Meta.traceBounds, threads});
})()"""


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    exe = browser()
    if not exe:
        print("SKIP: no Chromium found (apt-get install chromium); the real-viewer check did not run")
        return SKIP
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    makespan = float(trace["otherData"]["makespan_us"])
    ours = Counter()
    names = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            ours[(e["pid"], e["tid"])] += 1
        elif e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]

    signal.alarm(120)  # never hang a test run
    chrome = Chrome(exe)
    try:
        chrome.attach_blank_page()
        chrome.call("Page.navigate", {"url": "devtools://devtools/bundled/devtools_app.html"})
        for _ in range(200):
            if chrome.evaluate("document.readyState") == "complete":
                break
            time.sleep(0.1)
        try:
            out = json.loads(chrome.evaluate(PARSE_JS.replace("TRACE", json.dumps(trace))))
        except RuntimeError as e:
            if "Failed to fetch dynamically imported module" in str(e) or "Cannot find module" in str(e):
                print(f"SKIP: this Chromium's DevTools has no trace model to import ({e})")
                return SKIP
            raise
    finally:
        chrome.close()

    problems = []
    seen = {(t["pid"], t["tid"]): t for t in out["threads"]}
    for track, n in sorted(ours.items()):
        t = seen.get(track)
        if t is None:
            problems.append(f"track {track} ({names.get(track)}): the viewer has no such thread")
            continue
        if t["entries"] != n:
            problems.append(f"track {track} ({names.get(track)}): wrote {n} slices, the viewer read {t['entries']}")
        if t["in_tree"] != n:
            problems.append(f"track {track} ({names.get(track)}): {n - t['in_tree']} slice(s) dropped from the viewer's tree "
                            "(partial overlap)")
        if t["name"] != names.get(track):
            problems.append(f"track {track}: named {names.get(track)!r}, the viewer shows {t['name']!r}")
    hi = out["bounds"]["max"]
    if hi > makespan + 1e-3:
        problems.append(f"the viewer's trace ends at {hi} us, after the run's {makespan} us")
    for p in problems[:20]:
        print("FAIL:", p)
    slices = sum(ours.values())
    if problems:
        return 1
    print(f"ok: Chrome DevTools' trace model read all {slices} slices on {len(ours)} tracks as nested trees, "
          f"bounds within the {makespan} us run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
