"""A real headless browser for the tests: Debian's ``chromium``, driven by the DevTools
protocol over a pipe (``--remote-debugging-pipe``: JSON messages ending in a NUL byte on
file descriptors 3 and 4), so no port, no websocket and no extra package.

``Page.open(path, width, height)`` loads a file and gathers what went wrong: console
errors, uncaught exceptions, log entries of level error, requests to anything but
``file:`` and ``data:`` URLs, and images that did not decode.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

#: Chromium's flags for a quiet, offline, sandbox-free run (as root in CI).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe"]
TIMEOUT = 90.0


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One chromium process; ``call`` sends a command and waits for its answer, keeping the
    events that arrive meanwhile in ``events``."""

    def __init__(self, exe: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="snl-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        cmd = " ".join([exe, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"])
        self.proc = subprocess.Popen(
            ["bash", "-c", f"exec {cmd} 3<&{to_chrome_r} 4>&{from_chrome_w}"],
            pass_fds=(to_chrome_r, from_chrome_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, session: str | None = None, **params) -> dict:
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, method: str, session: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        for i, event in enumerate(self.events):
            if event.get("method") == method and event.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            event = self._read(deadline)
            if event.get("method") == method and event.get("sessionId") == session:
                return event
            self.events.append(event)

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def open_page(browser: Browser, path: str, *, width: int, height: int, mobile: bool = False
              ) -> tuple[str, list[str]]:
    """Load ``path`` in a new tab of ``width`` x ``height`` CSS pixels; returns the tab's
    session and the problems seen while loading (console errors, exceptions, error log
    entries, requests off ``file:``/``data:``, images that did not decode)."""
    target = browser.call("Target.createTarget", url="about:blank")["targetId"]
    session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        browser.call(f"{domain}.enable", session)
    browser.call("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                 deviceScaleFactor=1, mobile=mobile)
    browser.events.clear()
    browser.call("Page.navigate", session, url="file://" + os.path.abspath(path))
    browser.wait_for("Page.loadEventFired", session)
    images = browser.call("Runtime.evaluate", session, returnByValue=True, expression=(
        "Array.from(document.images).map(i => [i.alt, i.complete && i.naturalWidth > 0])"))
    broken = [f"broken image: {alt!r}" for alt, ok in images["result"]["value"] if not ok]
    return session, broken + page_problems(browser, session)


def page_problems(browser: Browser, session: str) -> list[str]:
    """Console errors, exceptions, error log entries and requests off ``file:``/``data:``
    seen by the tab ``session`` since the browser's events were last cleared."""
    found = []
    for event in browser.events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append(f"console error: {params.get('args')}")
        elif method == "Runtime.exceptionThrown":
            found.append(f"exception: {params.get('exceptionDetails')}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            found.append(f"log error: {params['entry'].get('text')}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if not url.startswith(("file:", "data:")):
                found.append(f"request to {url}")
    return found


def evaluate(browser: Browser, session: str, expression: str):
    return browser.call("Runtime.evaluate", session, expression=expression,
                        returnByValue=True)["result"]["value"]


def screenshot(browser: Browser, session: str) -> bytes:
    """The whole page as PNG bytes."""
    shot = browser.call("Page.captureScreenshot", session, format="png",
                        captureBeyondViewport=True)
    return base64.b64decode(shot["data"])


def print_pdf(browser: Browser, session: str) -> bytes:
    """The page printed on A4 (the page's own ``@page`` size when it states one)."""
    pdf = browser.call("Page.printToPDF", session, paperWidth=8.27, paperHeight=11.69,
                       preferCSSPageSize=True, printBackground=True)
    return base64.b64decode(pdf["data"])
