"""Reading a run's files for the page: regular files inside the run's folder only.

A report is often built from result directories someone else wrote, so nothing in them may make
the page copy a file from elsewhere on this machine. Every file the report reads or sizes goes
through here:

- `refusal(path, root)` says why ``path`` must not be read: it is a symbolic link (to a file or a
  directory, dangling or not: never followed), not a regular file (a FIFO, a device), or not
  inside ``root`` once resolved; None when it may be read;
- `file_size` and `read_bytes` / `read_text` check the same and raise `Refused` (an `OSError`
  whose ``strerror`` is the reason); `read_bytes` opens with ``O_NOFOLLOW`` and checks the opened
  descriptor (``fstat``), so a file swapped for a link after it was listed is refused too.

Where a run's files are listed (`wirelab.report.runs`), links are set aside with a note and never
walked into.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

LINK = "is a symbolic link, not followed"
NOT_REGULAR = "is not a regular file"
OUTSIDE = "is outside the run's folder"


class Refused(OSError):
    """A file the report does not read; ``strerror`` says why (`LINK`, `NOT_REGULAR`, ...)."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(errno.EPERM, why, str(path))


def inside(path: str | Path, root: str | Path) -> bool:
    """True when ``path``, resolved (links followed), is ``root`` resolved or below it."""
    real, base = Path(path).resolve(), Path(root).resolve()
    return real == base or base in real.parents


def refusal(path: str | Path, root: str | Path) -> str | None:
    """Why ``path`` must not be read (`LINK`, `NOT_REGULAR`, `OUTSIDE`), or None.

    A path that does not exist (or cannot be examined) gives None: reading it then fails with
    the system's own reason.
    """
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return LINK
    if not stat.S_ISREG(mode):
        return NOT_REGULAR
    return None if inside(path, root) else OUTSIDE


def file_size(path: str | Path, root: str | Path) -> int:
    """The size in bytes of a regular file inside ``root``; `Refused` or `OSError` otherwise."""
    why = refusal(path, root)
    if why:
        raise Refused(path, why)
    return os.lstat(path).st_size


def read_bytes(path: str | Path, root: str | Path) -> bytes:
    """The contents of a regular file inside ``root``, never through a link.

    Raises `Refused` for a link, a file that is not regular or one outside ``root``; `OSError`
    when it cannot be read.
    """
    why = refusal(path, root)
    if why:
        raise Refused(path, why)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the last part became a link after it was listed
            raise Refused(path, LINK) from None
        raise
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused(path, NOT_REGULAR)
        if not inside(path, root):
            raise Refused(path, OUTSIDE)
        return fh.read()


def read_text(path: str | Path, root: str | Path) -> str:
    """`read_bytes` decoded as UTF-8 (`UnicodeDecodeError` if it is not), newlines untouched."""
    return read_bytes(path, root).decode("utf-8")
