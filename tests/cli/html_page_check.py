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
import os
import sys
import time

from chromium_pipe import SKIP, Chrome, browser

WIDTH, HEIGHT = 1200, 1600


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
    chrome = Chrome(exe, ["--hide-scrollbars"])
    try:
        chrome.attach_blank_page()
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
        svgs = chrome.evaluate("document.querySelectorAll('svg').length")
        scripts = chrome.evaluate("document.scripts.length")
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
