"""Reading a run's files for the page: regular files inside the run's folder only.

A report is often built from result directories someone else wrote, so nothing in them may make
the page copy a file from elsewhere on this machine. Every file the report reads or sizes goes
through here:

- `refusal(path, root)` says why ``path`` must not be read: it is a symbolic link (to a file or a
  directory, dangling or not: never followed), a hard link (a regular file with more than one
  name, ``st_nlink > 1``: its other name may be anywhere on this machine, and a name cannot tell
  which of them is the original, so such a file is refused like a symbolic link), not a regular
  file (a FIFO, a device), or not inside ``root`` once resolved; None when it may be read;
- `file_size` and `read_bytes` / `read_text` check the same and raise `Refused` (an `OSError`
  whose ``strerror`` is the reason); `read_bytes` opens with ``O_NOFOLLOW`` and checks the opened
  descriptor (``fstat``), so a file swapped for a link after it was listed is refused too;
- `shown(name)` is a file name as text that can be printed and written to the page whatever its
  bytes: a byte that is not UTF-8 (a name from another system) becomes ``\\xff``, as Python
  writes it, and `href_bytes` is the name's own bytes for a link;
- `read_json` reads a JSON file the same way and refuses, as `Unreadable` (one line), what would
  take the page down rather than one run: a file over `MAX_JSON_BYTES`, invalid JSON, a number
  past Python's digit limit (10,000 digits), nesting deeper than `MAX_JSON_DEPTH` (200,000 nested
  arrays exhaust the parser's recursion; a few hundred would the page's).

Where a run's files are listed (`wirelab.report.runs`), links are set aside with a note and never
walked into.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

LINK = "is a symbolic link, not followed"
HARD_LINK = "is a hard link (the same file has another name, maybe outside the run), not read"
NOT_REGULAR = "is not a regular file"
OUTSIDE = "is outside the run's folder"


MAX_JSON_BYTES = 64 * 1024 * 1024
"""Larger JSON files are not read (a run's metrics are far smaller)."""
MAX_JSON_DEPTH = 64
"""Deeper nesting of lists and objects is refused (wirelab's own files nest a few levels)."""


class Unreadable(ValueError):
    """A JSON file that cannot be shown; the message says why in one line."""


class Refused(OSError):
    """A file the report does not read; ``strerror`` says why (`LINK`, `NOT_REGULAR`, ...)."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(errno.EPERM, why, str(path))


def shown(name: str | Path) -> str:
    """``name`` (a path or text) as text safe to print and to encode as UTF-8: bytes of a file
    name that are not UTF-8 (Python holds them as lone surrogates) become ``\\xNN``; any other
    lone surrogate (from JSON's ``"\\ud800"``) becomes ``\\udNNN``.

    >>> shown(os.fsdecode(b"plot\\xff.png"))
    'plot\\\\xff.png'
    """
    text = str(name)
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def href_bytes(name: str | Path) -> bytes:
    """The bytes of a file name as the file system holds them (for a link's URL quoting)."""
    try:
        return str(name).encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return str(name).encode("utf-8", "backslashreplace")


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
    if os.lstat(path).st_nlink > 1:
        return HARD_LINK
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
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise Refused(path, NOT_REGULAR)
        if opened.st_nlink > 1:
            raise Refused(path, HARD_LINK)
        if not inside(path, root):
            raise Refused(path, OUTSIDE)
        return fh.read()


def read_text(path: str | Path, root: str | Path) -> str:
    """`read_bytes` decoded as UTF-8 (`UnicodeDecodeError` if it is not), newlines untouched."""
    return read_bytes(path, root).decode("utf-8")


def read_json(path: str | Path, root: str | Path) -> Any:
    """A JSON file inside ``root``, read as `read_bytes` does.

    Raises `Refused` or `OSError` as `read_bytes`; `Unreadable` (a `ValueError`, one line) for a
    file over `MAX_JSON_BYTES`, text that is not UTF-8 JSON, a number too long for Python, or
    nesting deeper than `MAX_JSON_DEPTH`.
    """
    size = file_size(path, root)
    if size > MAX_JSON_BYTES:
        raise Unreadable(f"is {size:,} bytes, more than the report reads ({MAX_JSON_BYTES:,})")
    data = read_bytes(path, root)
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise Unreadable(f"is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise Unreadable(f"is not valid JSON: {exc}") from None
    except RecursionError:
        raise Unreadable(f"nests deeper than the report reads ({MAX_JSON_DEPTH} levels)") from None
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        why = " ".join(str(exc).split(";")[0].split())[:120]
        raise Unreadable(f"cannot be read as JSON: {why}") from None
    if _depth_over(doc, MAX_JSON_DEPTH):
        raise Unreadable(f"nests deeper than the report reads ({MAX_JSON_DEPTH} levels)")
    return doc


def _depth_over(doc: Any, limit: int) -> bool:
    """True when lists/objects in ``doc`` nest more than ``limit`` levels (no recursion)."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            values = item.values() if isinstance(item, dict) else item
            stack += [(v, depth + 1) for v in values if isinstance(v, dict | list)]
    return False
