"""A minimal Chrome DevTools Protocol client over a pipe (no websocket library needed).

Chromium started with ``--remote-debugging-pipe`` reads NUL-terminated JSON
messages on file descriptor 3 and writes its answers on descriptor 4.  The
report tests use it to open a page headless and offline, time its loading,
evaluate the page's own checks, run axe-core from a local file and take
screenshots::

    with Browser(chromium) as b:
        page = b.open("file:///.../report.html", width=1400)
        page.evaluate("document.title")
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


class CDPError(RuntimeError):
    pass


class Browser:
    """A headless chromium process driven over ``--remote-debugging-pipe``."""

    def __init__(self, chromium: str, timeout: float = 120.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="infoloss-chromium-")
        r_ours, w_theirs = os.pipe()  # chromium writes on its fd 4
        r_theirs, w_ours = os.pipe()  # chromium reads on its fd 3
        cmd = [chromium, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
               "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
               f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")
        unshare = shutil.which("unshare")
        if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
            cmd = [unshare, "-n", *cmd]  # no network at all

        def child_fds() -> None:  # move the pipe ends to 3 and 4 (via free numbers: they may be 3 or 4 already)
            a, b = os.dup(r_theirs), os.dup(w_theirs)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(cmd, preexec_fn=child_fds,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     close_fds=False)
        os.close(r_theirs)
        os.close(w_theirs)
        self._in = os.fdopen(r_ours, "rb", buffering=0)
        self._out = os.fdopen(w_ours, "wb", buffering=0)
        self._next = 0
        self._buffer = b""
        self.events: list[dict[str, Any]] = []

    # -- protocol -------------------------------------------------------------------------------
    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._out.write(json.dumps(msg).encode() + b"\0")
        want = self._next
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read(deadline)
            if reply.get("id") == want:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, session: str | None = None, timeout: float | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for k, ev in enumerate(self.events):
                if ev.get("method") == method and (session is None or ev.get("sessionId") == session):
                    return self.events.pop(k)
            self.events.append(self._read(deadline))

    def _read(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for chromium")
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = self._in.read(1 << 20)
                if not chunk:
                    raise CDPError("chromium closed the pipe: " + self._stderr())
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _stderr(self) -> str:
        try:
            return (self.proc.stderr.read() or b"").decode(errors="replace")[-2000:]
        except Exception:  # pragma: no cover
            return ""

    # -- pages ----------------------------------------------------------------------------------
    def open(self, url: str, width: int = 1400, height: int = 1000) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        page.send("Page.enable")
        page.send("Runtime.enable")
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        start = time.perf_counter()
        page.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", session)
        page.wall_seconds = time.perf_counter() - start
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.proc.kill()
        for f in (self._in, self._out):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Page:
    """One tab."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session
        self.wall_seconds = 0.0

    def send(self, method: str, params: dict | None = None, timeout: float | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session, timeout)

    def evaluate(self, expression: str, timeout: float | None = None) -> Any:
        """The value of a JavaScript expression (promises are awaited)."""
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                      timeout)
        if "exceptionDetails" in r:
            raise CDPError(json.dumps(r["exceptionDetails"])[:2000])
        return r.get("result", {}).get("value")

    def screenshot(self, path: str | Path, full_page: bool = True, max_height: int = 16000) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            metrics = self.send("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], max_height),
                              "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def pdf(self, path: str | Path) -> Path:
        data = self.send("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True},
                         timeout=180)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)
