#!/usr/bin/env python3
"""Opens a `ccsim explain --format html` page in headless Chromium with the network switched off and
checks what a student would see: the page loads with no console error, no exception and no request
leaving the file (no network fetch, no favicon), it holds the SVG drawings it promises, and a
screenshot at a fixed size is not blank (enough non-white pixels, and more than one colour).

Exit status: 0 pass, 1 fail, 77 skipped (no Chromium or no Pillow: `scripts/setup.sh --tests`).
Usage: html_page_check.py PAGE.html MIN_SVGS SCREENSHOT.png
"""
import base64
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
WIDTH, HEIGHT = 1200, 1600


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class Chrome:
    """Chromium over --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-separated); keeps every event."""

    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="ccsim-html-")
        to_r, self.to_chrome = os.pipe()
        self.from_chrome, from_w = os.pipe()

        def fds():
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             "--hide-scrollbars", f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf, self.next_id, self.session, self.events = b"", 0, None, []

    def read_one(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium exited")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self.read_one()
            if "method" in reply:
                self.events.append(reply)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def wait_for(self, method, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if any(e["method"] == method for e in self.events):
                return True
            self.call("Runtime.evaluate", {"expression": "1"})  # pumps the pipe
            time.sleep(0.05)
        return False

    def close(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def problems_in(events, page_url):
    out = []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.exceptionThrown":
            out.append("exception: " + p["exceptionDetails"].get("text", ""))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            out.append(f"console {p['type']}: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            out.append(f"log {p['entry']['level']}: {p['entry'].get('text', '')} {p['entry'].get('url', '')}")
        elif m == "Network.requestWillBeSent" and p["request"]["url"] != page_url:
            out.append("fetches " + p["request"]["url"])
        elif m == "Network.loadingFailed":
            out.append("failed to load: " + p.get("errorText", ""))
    return out


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    page, min_svgs, shot = os.path.abspath(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    exe = browser()
    try:
        from PIL import Image
    except ImportError:
        Image = None
    if not exe or Image is None:
        print("skipped: needs Chromium and Pillow (scripts/setup.sh --tests)")
        return SKIP
    url = "file://" + page
    chrome = Chrome(exe)
    try:
        target = chrome.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        chrome.session = chrome.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            chrome.call(domain + ".enable")
        chrome.call("Network.emulateNetworkConditions",
                    {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        chrome.call("Emulation.setDeviceMetricsOverride",
                    {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        chrome.call("Page.navigate", {"url": url})
        if not chrome.wait_for("Page.loadEventFired", 20):
            print("FAIL: the page did not finish loading in 20 s")
            return 1
        time.sleep(0.3)
        chrome.call("Runtime.evaluate", {"expression": "1"})
        svgs = chrome.call("Runtime.evaluate", {"expression": "document.querySelectorAll('svg').length",
                                                "returnByValue": True})["result"]["value"]
        scripts = chrome.call("Runtime.evaluate", {"expression": "document.scripts.length", "returnByValue": True})["result"]["value"]
        png = base64.b64decode(chrome.call("Page.captureScreenshot", {"format": "png"})["data"])
        problems = problems_in(chrome.events, url)
    finally:
        chrome.close()
    with open(shot, "wb") as f:
        f.write(png)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    if img.size != (WIDTH, HEIGHT):
        problems.append(f"screenshot is {img.size}, expected {(WIDTH, HEIGHT)}")
    pixels = list(img.getdata())
    ink = sum(1 for r, g, b in pixels if r + g + b < 720)
    colours = {p for p in pixels if not (p[0] == p[1] == p[2])}
    if ink < len(pixels) // 100:
        problems.append(f"screenshot nearly blank: {ink} of {len(pixels)} pixels not white")
    if len(colours) < 3:
        problems.append(f"screenshot has no colour drawing ({len(colours)} coloured values)")
    if svgs < min_svgs:
        problems.append(f"{svgs} SVG drawings, expected at least {min_svgs}")
    if scripts:
        problems.append(f"{scripts} script element(s): the page promises none")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"ok: {svgs} SVGs, {ink} non-white pixels of {len(pixels)}, {len(colours)} colours; screenshot {shot}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
