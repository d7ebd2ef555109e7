"""One progress bar for every long command.

A terminal gets a rich bar (elapsed and remaining time); anything else (a log file, CI, a pipe)
gets one line per 10% on stderr, and a line at least every `HEARTBEAT` seconds while work is
running (units done, elapsed, estimated time left), so long runs are visible without filling a
log::

    with progress_bar("training", total=epochs, show=not quiet) as bar:
        for epoch in range(epochs):
            ...
            bar.advance()            # or bar.update(completed), or bar.fraction(f) for f in [0, 1]
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

HEARTBEAT = 15.0  # seconds: the longest a log goes without a progress line


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


class ProgressBar:
    """A bar over ``total`` units: ``update`` sets, ``advance`` adds, ``fraction`` scales."""

    def __init__(
        self, description: str, total: float, bar: Any = None, *, lines: bool = False
    ) -> None:
        self.description = description
        self.total = float(total)
        self.completed = 0.0
        self._bar = bar
        self._task = bar.add_task(description, total=self.total) if bar is not None else None
        self._t0 = time.perf_counter()
        self._tenth = -1
        self._show_lines = lines  # no rich bar: one line per 10% on stderr
        self._last_line = self._t0
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        if lines:
            self._beat = threading.Thread(target=self._heartbeat, daemon=True)
            self._beat.start()

    def status(self) -> str:
        """``desc: 40% (4/10), 32 s, about 48 s left`` (no estimate before the first unit)."""
        elapsed = time.perf_counter() - self._t0
        done = min(self.completed / self.total, 1.0) if self.total > 0 else 0.0
        counts = f" ({self.completed:g}/{self.total:g})" if self.total > 1 else ""
        left = f", about {_duration(elapsed * (1 - done) / done)} left" if 0 < done < 1 else ""
        return f"{self.description}: {100 * done:.0f}%{counts}, {_duration(elapsed)}{left}"

    def _heartbeat(self) -> None:
        """A status line whenever `HEARTBEAT` seconds pass without one (woken at that moment,
        not polled, so no gap exceeds it)."""
        while True:
            left = self._last_line + HEARTBEAT - time.perf_counter()
            if left > 0:
                if self._stop.wait(left):
                    return
                continue
            self._last_line = time.perf_counter()
            print(self.status(), file=sys.stderr, flush=True)

    def close(self) -> None:
        """Stop the heartbeat (the context manager calls this)."""
        self._stop.set()

    def update(self, completed: float) -> None:
        self.completed = float(completed)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.completed)
        elif self._show_lines and self.total > 0:
            tenth = int(10 * min(self.completed / self.total, 1.0))
            if tenth > max(self._tenth, 0):  # no "0%" line: a run that fails at once prints none
                self._tenth = tenth
                self._last_line = time.perf_counter()
                print(self.status(), file=sys.stderr, flush=True)

    def advance(self, n: float = 1.0) -> None:
        self.update(self.completed + n)

    def fraction(self, f: float) -> None:
        """Set progress as a fraction in [0, 1] of the total."""
        self.update(f * self.total)

    def __call__(self, f: float) -> None:
        """Callback form: the completed fraction in [0, 1]."""
        self.fraction(f)


@contextmanager
def progress_bar(
    description: str, total: float = 1.0, *, show: bool = True
) -> Iterator[ProgressBar]:
    """A bar on stderr: rich on a terminal, a line per 10% otherwise, none unless ``show``."""
    if not show:
        yield ProgressBar(description, total)
        return
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        bar = ProgressBar(description, total, lines=True)
        try:
            yield bar
        finally:
            bar.close()
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as rich_bar:
        yield ProgressBar(description, total, rich_bar)
