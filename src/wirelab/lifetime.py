"""What ties a result directory to the process writing it: its lock, and SIGTERM.

- `lock_dir` / `unlock_dir`: one writer per result directory. The writer holds an advisory
  ``flock`` on ``DIR/.lock`` (the file holds its pid) from before it writes anything until it
  finishes; the kernel drops the lock when the process ends, however it ends (SIGKILL included),
  so a killed run never blocks the next one, while a second run into a directory whose run is
  alive gets `DirectoryBusy`, one line naming the live process. Protocol: open (creating) the
  file, ``flock(LOCK_EX | LOCK_NB)``, then check that the path still names the locked file (a
  holder that was ending may have removed it; then start again); the holder removes the file
  while it still holds the lock, then closes it.
- `sigterm_raises`: SIGTERM (what ``timeout``, ``kill`` and batch schedulers send) raises
  `Terminated`, a ``SystemExit(143)``, in the main thread, so that the cleanup of a run
  (``failed.json``, killing the points of a sweep) happens as for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wirelab.errors import UsageError

LOCK = ".lock"


class DirectoryBusy(UsageError):
    """A run into a directory whose run is still alive (its lock is held)."""


class Terminated(SystemExit):
    """SIGTERM during an experiment: recorded as the run's failure, then exits with 143."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)

    def __str__(self) -> str:
        return "SIGTERM"


def _holder(fd: int) -> str:
    """Who holds a lock: the pid its holder wrote in the lock file."""
    with contextlib.suppress(OSError, ValueError):
        return f"pid {int(os.pread(fd, 32, 0).decode().strip())}"
    return "pid not yet written"


def lock_dir(path: Path) -> int | None:
    """Take the advisory lock of the result directory ``path`` (``flock`` on ``path/.lock``).

    Returns the locked descriptor (None where the file system has no locks); raises
    `DirectoryBusy` naming the holder's pid when another open lock holds it. The lock is released
    by `unlock_dir` or when the process ends, however it ends.
    """
    lock = path / LOCK
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise UsageError(f"cannot write to --out {path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise DirectoryBusy(
                f"{path} is being written by a run that is still alive ({holder}); wait for it "
                "to end or choose another --out"
            ) from None
        except OSError:  # no locks on this file system: run unlocked, as before locks existed
            os.close(fd)
            return None
        try:
            current = os.stat(lock).st_ino
        except FileNotFoundError:
            current = -1
        if current == os.fstat(fd).st_ino:  # not removed by a holder that just ended
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)


def unlock_dir(path: Path, fd: int | None, owner: int) -> None:
    """Remove the lock file of ``path`` (while still holding it) and release the lock.

    ``owner`` is the pid that took the lock: a forked child that inherited the descriptor only
    closes its copy (the lock and the file stay with the process that runs the experiment)."""
    if fd is None:
        return
    with contextlib.suppress(OSError):
        if os.getpid() == owner and os.stat(path / LOCK).st_ino == os.fstat(fd).st_ino:
            os.unlink(path / LOCK)
    os.close(fd)


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises `Terminated` while the block runs (main thread only; elsewhere a no-op),
    so that ``failed.json`` and every cleanup run as for Ctrl-C; the previous handler returns."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
