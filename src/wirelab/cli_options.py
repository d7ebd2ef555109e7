"""Click options and types shared by every command (one definition each).

- `out_option`: ``--out DIR`` (a directory; a file there, or an empty path, which would make the
  current directory a result directory, is a one-line usage error) and ``--overwrite`` (rerun
  into a directory that holds a finished run; see `wirelab.results`); `OUT_DIR` is its type.
- `FINITE_FLOAT` and `finite_float(min=..., max=...)`: floats that reject NaN and inf up front,
  with one line, before any result directory exists.
- `SEED`: an integer seed in [0, 2**32 - 1] (what numpy accepts); `THREADS`: 1 to 1024.
- `COUNT` (1 to `MAX_COUNT` = 2**31 - 1) and `count(min, max)`: counts and sizes, bounded so that
  no value overflows a 32-bit index or a C ``int`` downstream (memory is checked where it is
  read, with `check_memory`). `SECONDS`: a timeout or duration in seconds, > 0 and at most
  `MAX_SECONDS` (a week), finite.
- `check_out(out, overwrite=...)`: the checks ``ResultDir.create`` makes of ``--out``, made
  before any work by a command that works long before it writes (one line, nothing written).
- `check_memory(what, nbytes)`: sizes a user gives (lengths, counts, widths) are checked before
  anything is allocated: ``nbytes``, a lower bound of what the size needs, against the memory
  available now (`available_memory`); over it, one line naming both.
- `check_output_file(path, what)`: a file a command will write at the end (a video) is checked
  before any work: one line when it cannot be written there.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from wirelab.errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])


class FiniteFloat(click.ParamType):
    """A float that is finite and optionally bounded: ``nan``, ``inf`` and out-of-range fail."""

    name = "float"

    def __init__(
        self,
        min: float | None = None,
        max: float | None = None,
        *,
        min_open: bool = False,
        max_open: bool = False,
    ) -> None:
        self.min, self.max, self.min_open, self.max_open = min, max, min_open, max_open

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        lo_bad = self.min is not None and (x <= self.min if self.min_open else x < self.min)
        hi_bad = self.max is not None and (x >= self.max if self.max_open else x > self.max)
        if lo_bad or hi_bad:
            lo = "" if self.min is None else f"{'>' if self.min_open else '>='} {self.min:g}"
            hi = "" if self.max is None else f"{'<' if self.max_open else '<='} {self.max:g}"
            self.fail(
                f"{x:g} is out of range (must be {' and '.join(s for s in (lo, hi) if s)})",
                param,
                ctx,
            )
        return x


FINITE_FLOAT = FiniteFloat()


def finite_float(
    min: float | None = None,
    max: float | None = None,
    *,
    min_open: bool = False,
    max_open: bool = False,
) -> FiniteFloat:
    return FiniteFloat(min, max, min_open=min_open, max_open=max_open)


SEED = click.IntRange(min=0, max=2**32 - 1)
# Thread counts: at least one, and not absurd (torch and numba overflow on huge values).
THREADS = click.IntRange(min=1, max=1024)
MAX_COUNT = 2**31 - 1  # counts and sizes: a 32-bit index, a C int
MAX_SECONDS = 7 * 24 * 3600.0  # timeouts and durations: a week


def count(min: int = 1, max: int = MAX_COUNT) -> click.IntRange:
    """An integer in ``[min, max]`` (a count, a size, a rank); out of range is one line."""
    return click.IntRange(min=min, max=max)


COUNT = count()  # a positive count
SECONDS = FiniteFloat(0.0, MAX_SECONDS, min_open=True)  # a timeout in seconds


class OutDir(click.Path):
    """A result directory path (``file_okay=False``); the empty path is refused."""

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            self.fail(
                "'' is empty (it would make the current directory a result directory)", param, ctx
            )
        return super().convert(value, param, ctx)


OUT_DIR = OutDir()


def comma_list(text: str | None) -> list[str] | None:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``: the names of a comma-separated option, stripped,
    empty ones dropped; None for no value (the option left out)."""
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def available_memory() -> int | None:
    """Bytes of memory available now: ``MemAvailable`` (Linux), lowered to the room left under
    a cgroup v2 limit; the physical memory where neither is known; None if nothing is."""
    found: list[int] = []
    try:
        with open("/proc/meminfo") as fh:
            found += [int(ln.split()[1]) * 1024 for ln in fh if ln.startswith("MemAvailable:")]
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            limit = fh.read().strip()
        with open("/sys/fs/cgroup/memory.current") as fh:
            used = int(fh.read().strip())
        if limit != "max":
            found.append(max(int(limit) - used, 0))
    except (OSError, ValueError):
        pass
    if not found:
        try:
            found.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        except (OSError, ValueError, AttributeError):
            return None
    return min(found)


def _bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000
    raise AssertionError


def check_memory(what: str, nbytes: float) -> None:
    """One-line `UsageError` when ``what`` (e.g. ``"--length 100000000"``) needs at least
    ``nbytes`` and that is more than the memory available now."""
    limit = available_memory()
    if limit is not None and nbytes > limit:
        raise UsageError(
            f"{what} needs at least {_bytes(nbytes)} of memory, over the limit of "
            f"{_bytes(limit)} (the memory available now)"
        )


def check_output_file(path: str | Path, what: str) -> None:
    """One-line `UsageError` when no file can be written at ``path`` (``what`` names the
    option, e.g. ``"--video"``): it is a directory or a file not writable, a folder on its way
    is a file, or the nearest existing folder above it (missing ones are created by the writer)
    takes no new file. The last is tried, since root passes every permission check: a temporary
    file is created there and removed at once."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{what} {path} is a directory; give a file name")
    if os.path.lexists(path) and not os.access(path, os.W_OK):
        raise UsageError(f"{what} {path} cannot be written (permission denied)")
    folder = path.absolute().parent
    while not os.path.exists(folder) and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"{what} {path}: {folder} is not a directory")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".wirelab-probe-"):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise UsageError(f"{what} {path}: cannot write in {folder} ({why})") from None


def check_out(out: str | Path, *, overwrite: bool = False) -> None:
    """Before any work: a one-line `UsageError` when ``out`` cannot become this run's result
    directory: it is empty (the current directory), a file, under a file, holds a finished run
    (without ``overwrite``), or its nearest existing folder takes no new entry. What
    ``ResultDir.create`` checks again when the run starts; nothing is created here."""
    from wirelab.results import ResultDir

    if str(out) == "":
        raise UsageError(
            "--out '' is empty (it would make the current directory a result directory)"
        )
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {path} exists and is not a directory")
    if path.is_dir():
        status = ResultDir(path).status
        if status in ("complete", "failed") and not overwrite:
            raise UsageError(
                f"{path} already holds a {status} run; pass --overwrite or choose another --out"
            )
    folder = path.absolute()
    while not os.path.exists(folder) and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"cannot create --out {path}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write to --out {path}: permission denied in {folder}")


def out_option(
    default: str | None = None, help: str = "Result directory to write."
) -> Callable[[F], F]:
    """``--out`` (required when no default) and ``--overwrite`` in one decorator."""

    def deco(f: F) -> F:
        f = click.option(
            "--overwrite",
            is_flag=True,
            help="Replace a finished run in --out (by default the command refuses).",
        )(f)
        return click.option(
            "--out",
            type=OUT_DIR,
            default=default,
            required=default is None,
            show_default=default is not None,
            help=help,
        )(f)

    return deco
