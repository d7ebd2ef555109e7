"""Open a page in headless Chromium and report what a reader would see.

Talks the Chrome DevTools Protocol (CDP) over ``--remote-debugging-pipe``: Chromium reads
NUL-terminated JSON commands from file descriptor 3 and writes replies and events to descriptor 4.
This needs only the ``chromium`` binary (Debian's package), no driver and no Python package, and
the browser never touches the network (``--disable-background-networking`` and friends, a fresh
profile directory).

`check_page` collects every console error (``console.error``/``console.assert``), every uncaught
JavaScript exception and every browser log entry at level "error" (a resource that failed to load,
a blocked request), then checks each ``<img>`` (``naturalWidth > 0``) and ``<video>`` (metadata
loaded; its ``duration`` in seconds and the id of the story or article it is in are recorded)
and can save a PNG screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirelab.errors import WirelabError

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
)


class BrowserError(WirelabError):
    """Chromium is missing, failed to start, or did not answer in time."""


def find_chromium() -> str | None:
    """Path of a Chromium binary (``$WIRELAB_CHROMIUM`` first), or None."""
    env = os.environ.get("WIRELAB_CHROMIUM")
    if env:
        return env if Path(env).is_file() else shutil.which(env)
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageCheck:
    """What the browser saw: errors, sections, images and videos of one page."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    console_warnings: list[str] = field(default_factory=list)
    title: str = ""
    sections: list[str] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    videos: list[dict[str, Any]] = field(default_factory=list)
    page_size: tuple[int, int] = (0, 0)
    screenshot: Path | None = None

    @property
    def broken_images(self) -> list[dict[str, Any]]:
        return [im for im in self.images if not im["complete"] or im["naturalWidth"] <= 0]

    @property
    def broken_videos(self) -> list[dict[str, Any]]:
        return [
            v for v in self.videos if v["error"] or v["readyState"] < 1 or v.get("duration") == 0
        ]

    @property
    def ok(self) -> bool:
        return not (self.console_errors or self.broken_images or self.broken_videos)

    def problems(self) -> list[str]:
        out = [f"console: {e}" for e in self.console_errors]
        out += [f"image did not load: {im['alt'] or im['src']}" for im in self.broken_images]
        out += [f"video did not load: {v['src']} (error {v['error']})" for v in self.broken_videos]
        return out


class _Pipe:
    """A CDP connection over two pipes; ``send`` waits for the reply, events are queued."""

    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self.proc = proc
        self.wfd = to_browser
        self.rfd = from_browser
        self.buf = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer within the time limit")
            ready, _, _ = select.select([self.rfd], [], [], min(left, 0.5))
            if not ready:
                if self.proc.poll() is not None:
                    raise BrowserError(f"chromium exited with code {self.proc.returncode}")
                continue
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the DevTools pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return dict(json.loads(raw))

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.wfd, data) :]
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return dict(reply.get("result", {}))
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev["method"] == method:
                    return self.events.pop(i)
            msg = self._read_message(deadline)
            if "method" in msg:
                self.events.append(msg)


def _high_fd(fd: int) -> int:
    """Duplicate ``fd`` above 10 so that the child's dup2 onto 3 and 4 cannot clobber it."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return new


_PROBE = """
(async () => {
  const videos = [...document.querySelectorAll('video')];
  await Promise.all(videos.map(v => v.readyState >= 1 || v.error ? null : new Promise(res => {
    v.addEventListener('loadedmetadata', res, {once: true});
    v.addEventListener('error', res, {once: true});
    setTimeout(res, 10000);
  })));
  const el = document.documentElement;
  return {
    title: document.title,
    sections: [...document.querySelectorAll('section[id], article[id]')].map(s => s.id),
    images: [...document.images].map(i => ({src: i.currentSrc.slice(0, 80), alt: i.alt,
      complete: i.complete, naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight})),
    videos: videos.map(v => ({src: (v.currentSrc || '').slice(0, 80), readyState: v.readyState,
      error: v.error ? v.error.code : 0, videoWidth: v.videoWidth,
      duration: Number.isFinite(v.duration) ? v.duration : -1,
      story: (v.closest('.story, article[id]') || {id: ''}).id})),
    width: el.scrollWidth, height: el.scrollHeight,
  };
})()
"""


def _describe(ev: dict[str, Any]) -> tuple[str, str] | None:
    """Map a CDP event to ("error"|"warning", text), or None if it is not worth reporting."""
    p = ev.get("params", {})
    if ev["method"] == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        text = d.get("exception", {}).get("description") or d.get("text", "exception")
        return "error", f"uncaught {text}"
    if ev["method"] == "Runtime.consoleAPICalled":
        text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        if p.get("type") in ("error", "assert"):
            return "error", f"console.{p['type']}: {text}"
        if p.get("type") == "warning":
            return "warning", f"console.warn: {text}"
        return None
    if ev["method"] == "Log.entryAdded":
        e = p.get("entry", {})
        text = f"{e.get('source', 'log')}: {e.get('text', '')} {e.get('url', '')}".strip()
        if e.get("level") == "error":
            return "error", text
        if e.get("level") == "warning":
            return "warning", text
    return None


@contextlib.contextmanager
def _chromium(binary: str, width: int, height: int) -> Iterator[_Pipe]:
    """Start headless Chromium on a fresh profile with DevTools on a pipe; stop it on exit."""
    profile = tempfile.mkdtemp(prefix="wirelab-chromium-")
    cmd_r, cmd_w = os.pipe()  # we write commands to cmd_w, chromium reads fd 3
    ev_r, ev_w = os.pipe()  # chromium writes fd 4, we read ev_r
    child_r, child_w = _high_fd(cmd_r), _high_fd(ev_w)

    def _child_fds() -> None:
        os.dup2(child_r, 3)
        os.dup2(child_w, 4)

    argv = [
        binary,
        *CHROMIUM_FLAGS,
        "--remote-debugging-pipe",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        "about:blank",
    ]
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_child_fds,
            pass_fds=(3, 4),
        )
    except OSError as exc:
        for fd in (cmd_w, ev_r, child_r, child_w):
            os.close(fd)
        shutil.rmtree(profile, ignore_errors=True)
        raise BrowserError(f"could not start {binary}: {exc.strerror or exc}") from None
    os.close(child_r)
    os.close(child_w)
    try:
        yield _Pipe(proc, cmd_w, ev_r)
    finally:
        os.close(cmd_w)
        os.close(ev_r)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


def _open_tab(cdp: _Pipe, width: int, height: int, timeout: float) -> str:
    """A new tab with the viewport ``width x height``, attached; returns its session id."""
    target = cdp.send("Target.createTarget", {"url": "about:blank"}, timeout=timeout)
    attached = cdp.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
    session = str(attached["sessionId"])
    for method in ("Page.enable", "Runtime.enable", "Log.enable"):
        cdp.send(method, session=session)
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    cdp.send("Emulation.setDeviceMetricsOverride", metrics, session=session)
    return session


def _load(cdp: _Pipe, session: str, url: str, timeout: float) -> None:
    """Navigate to ``url`` and wait for its load event."""
    nav = cdp.send("Page.navigate", {"url": url}, session=session, timeout=timeout)
    if nav.get("errorText"):
        raise BrowserError(f"could not open {url}: {nav['errorText']}")
    cdp.wait_event("Page.loadEventFired", timeout=timeout)


def _probe(cdp: _Pipe, session: str, check: PageCheck, timeout: float) -> None:
    """Fill ``check`` with the page's title, sections, images, videos and size (`_PROBE`)."""
    probe = cdp.send(
        "Runtime.evaluate",
        {"expression": _PROBE, "awaitPromise": True, "returnByValue": True},
        session=session,
        timeout=timeout,
    )
    value = probe.get("result", {}).get("value", {})
    check.title = value.get("title", "")
    check.sections = list(value.get("sections", []))
    check.images = list(value.get("images", []))
    check.videos = list(value.get("videos", []))
    check.page_size = (int(value.get("width", 0)), int(value.get("height", 0)))


def _capture(
    cdp: _Pipe, session: str, check: PageCheck, out: Path, full_page: bool, timeout: float
) -> None:
    """Save a PNG of the viewport (or of the whole page) to ``out``; its folder must exist."""
    params: dict[str, Any] = {"format": "png"}
    if full_page:
        w, h = check.page_size
        params["clip"] = {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}
        params["captureBeyondViewport"] = True
    shot = cdp.send("Page.captureScreenshot", params, session=session, timeout=timeout)
    try:
        out.write_bytes(base64.b64decode(shot["data"]))
    except OSError as exc:
        raise BrowserError(f"cannot write the screenshot {out}: {exc.strerror or exc}") from None
    check.screenshot = out


def _collect_console(cdp: _Pipe, session: str, check: PageCheck) -> None:
    """Sort every queued console, exception and log event into errors and warnings."""
    cdp.send("Runtime.evaluate", {"expression": "0"}, session=session)  # flush pending events
    for ev in cdp.events:
        described = _describe(ev)
        if described is not None:
            level, text = described
            (check.console_errors if level == "error" else check.console_warnings).append(text)


def check_page(
    page: str | Path,
    *,
    screenshot: str | Path | None = None,
    width: int = 1280,
    height: int = 900,
    full_page: bool = False,
    chromium: str | None = None,
    timeout: float = 60.0,
) -> PageCheck:
    """Load ``page`` in headless Chromium; return its errors, sections, images and videos.

    ``screenshot`` saves a PNG of the first ``width x height`` pixels (or of the whole page with
    ``full_page=True``). Raises `BrowserError` if Chromium is missing or does not answer.
    """
    binary = chromium or find_chromium()
    if binary is None:
        raise BrowserError("chromium not found: install it (apt-get install chromium)")
    path = Path(page).resolve()
    if not path.is_file():
        raise BrowserError(f"{path} does not exist")
    check = PageCheck(url=path.as_uri())
    with _chromium(binary, width, height) as cdp:
        session = _open_tab(cdp, width, height, timeout)
        _load(cdp, session, check.url, timeout)
        _probe(cdp, session, check, timeout)
        if screenshot is not None:
            _capture(cdp, session, check, Path(screenshot), full_page, timeout)
        _collect_console(cdp, session, check)
        with contextlib.suppress(BrowserError):
            cdp.send("Browser.close", timeout=5)
    return check
