"""Headless Chromium driven over the DevTools protocol's pipe transport (no network port): what the
browser checks (html_page_check.py, trace_viewer_check.py) share. Chromium reads commands on fd 3 and
answers on fd 4, NUL-separated; every event it sends is kept in `events`."""
import json
import os
import shutil
import subprocess
import tempfile
import time

SKIP = 77  # ctest's skip status for a check whose browser is missing


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Chrome:
    def __init__(self, exe, extra_args=()):
        self.profile = tempfile.mkdtemp(prefix="ccsim-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():  # runs in the child: put the pipe ends on 3 and 4, inheritable
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             *extra_args, f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
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

    def attach_blank_page(self):
        """Opens an about:blank tab and sends every later call to it."""
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]

    def evaluate(self, js):
        r = self.call("Runtime.evaluate", {"expression": js, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("exception", {}).get("description", str(r["exceptionDetails"])))
        return r["result"].get("value")

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
