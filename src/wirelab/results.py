"""Result directories: the one way every experiment writes its output.

The experiment contract: every experiment is ``run(config, out: Path, *, overwrite=False) ->
metrics`` in its own package, and that function alone creates and finishes its result directory
through `experiment`::

    def run(cfg: MyConfig, out: Path, *, overwrite: bool = False) -> dict[str, Any]:
        validate(cfg)                                  # before the directory exists
        with experiment(out, command="wirelab my run", config=asdict(cfg),
                        overwrite=overwrite) as rd:
            ...                                        # work, rd.save_figure(...)
            return rd.finish(metrics)                  # metrics.json, last

A result directory holds

- ``.lock``: the advisory lock of the run writing it (``flock``; the file holds its pid), taken
  before anything is written and held until the run finishes or fails, so that it also ends with
  the process however it dies: a second run into a directory whose run is alive is refused with
  one line naming that process (`DirectoryBusy`); the file is removed when the run ends;
- ``.in-progress``: written first, before any work; removed when the run finishes or fails;
- ``config.json``: everything needed to rerun (the command, its configuration, the wirelab,
  Python, numpy, torch and numba versions, the host, its CPU model and torch's CPU capability);
- plots (PNG), videos and artifacts (trained models, generated sources);
- ``metrics.json``: the numbers, written last (with no ``.in-progress`` beside it, it marks a
  complete run), or ``failed.json`` (the one-line reason) when the run raised.

Its lifecycle: a new run into a directory that holds a finished or failed run refuses with one
line unless ``overwrite`` (or the command's own resume) is given; either way the previous
``metrics.json``, ``failed.json`` and plots are removed *before* any work, so a killed rerun can
never be shown as complete. Every file is written atomically (temporary file in the same
directory, then ``os.replace``) with mode ``0666 & ~umask`` (0644 under umask 022).

For the duration of `experiment`, SIGTERM (what ``timeout`` and batch schedulers send) raises
`Terminated` (a ``SystemExit`` with status 143) in the main thread, so that it is recorded in
``failed.json`` like Ctrl-C; the previous handler is restored afterwards. A command's
``--resume`` calls `refuse_finished_resume` first: resuming a complete run is refused with one
line and changes nothing.

Non-finite numbers (NaN, inf) are written as ``null`` by `write_json`; `ResultDir.finish` lists
their keys under ``"non_finite"`` in the metrics, so a diverged score is visible, never a traceback.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import tempfile
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from wirelab import __version__
from wirelab.errors import UsageError, WirelabError
from wirelab.lifetime import lock_dir, sigterm_raises, unlock_dir

IN_PROGRESS = ".in-progress"
FAILED = "failed.json"
METRICS = "metrics.json"
CONFIG = "config.json"
# Files of a previous run that a new run removes before it starts (artifacts such as model.pt
# and checkpoints stay, so that a resume can use them).
STALE_SUFFIXES = (".png", ".svg", ".mp4", ".gif")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a new file gets: ``0o666`` less the process umask (0644 under umask 022)."""
    return 0o666 & ~_umask()


def _plain(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=str)
    return obj


def sanitize(obj: Any, prefix: str = "") -> tuple[Any, list[str]]:
    """Plain JSON types, with every non-finite float replaced by ``None``.

    Returns the cleaned object and the dotted keys (list indices in brackets) that were not
    finite, e.g. ``(["a"], {"x": [1.0, None]}) <- {"x": [1.0, nan]}`` gives ``["x[1]"]``.
    """
    obj = _plain(obj)
    if isinstance(obj, float):
        return (obj, []) if math.isfinite(obj) else (None, [prefix or "<value>"])
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        bad: list[str] = []
        for k, v in obj.items():
            out[str(k)], b = sanitize(v, f"{prefix}.{k}" if prefix else str(k))
            bad += b
        return out, bad
    if isinstance(obj, (list, tuple)):
        items, bad = [], []
        for i, v in enumerate(obj):
            c, b = sanitize(v, f"{prefix}[{i}]")
            items.append(c)
            bad += b
        return items, bad
    if obj is None or isinstance(obj, (str, bool, int)):
        return obj, []
    raise TypeError(f"cannot write {type(obj).__name__} to JSON")


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file and an atomic rename (mode 0666 & ~umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_json(path: Path, obj: Any) -> Path:
    """Write ``obj`` as indented JSON atomically; non-finite floats become ``null``."""
    clean, _ = sanitize(obj)
    text = json.dumps(clean, indent=2, allow_nan=False)
    return atomic_write_bytes(path, (text + "\n").encode())


def read_json(path: Path) -> Any:
    with open(path) as fh:
        return json.load(fh)


def cpu_info(cpuinfo: str = "/proc/cpuinfo") -> dict[str, str]:
    """``cpu`` (the model name) and ``cpu_simd`` (its avx*, fma, sse4* flags) from the first
    CPU of ``/proc/cpuinfo``; elsewhere ``cpu`` is `platform.processor` (or "unknown")."""
    info = {"cpu": platform.processor() or "unknown"}
    try:
        first = Path(cpuinfo).read_text().split("\n\n")[0]
    except OSError:
        return info
    pairs = (line.partition(":") for line in first.splitlines())
    fields = {key.strip().lower(): val.strip() for key, sep, val in pairs if sep}
    info["cpu"] = fields.get("model name") or fields.get("hardware") or info["cpu"]
    simd = [f for f in fields.get("flags", "").split() if f.startswith(("avx", "fma", "sse4"))]
    if simd:
        info["cpu_simd"] = " ".join(simd)
    return info


def environment() -> dict[str, str]:
    """Versions and machine of a run, its CPU too: float rounding depends on it (vector widths,
    torch's CPU capability, numba's compiled loops), and so do bit-for-bit reruns."""
    env = {
        "wirelab": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "machine": platform.machine(),
        **cpu_info(),
        "cpus": str(os.cpu_count()),
    }
    torch, numba = sys.modules.get("torch"), sys.modules.get("numba")
    if torch is not None:
        env["torch"] = str(torch.__version__)
        env["torch_cpu_capability"] = str(torch.backends.cpu.get_cpu_capability())
    if numba is not None:
        env["numba"] = str(numba.__version__)
    return env


def one_line(exc: BaseException) -> str:
    """The exception as one line: ``Type: message`` with whitespace collapsed."""
    text = " ".join(str(exc).split())
    if isinstance(exc, WirelabError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def refuse_finished_resume(out: str | Path) -> None:
    """For ``--resume``, before anything is read or written: a one-line `UsageError` when
    ``out`` holds a complete run (there is nothing to resume; the run is left as it is)."""
    path = Path(out)
    if ResultDir(path).status == "complete":
        raise UsageError(
            f"--resume: {path} holds a complete run, there is nothing to resume "
            "(pass --overwrite instead to run it again)"
        )


class ResultDir:
    """A result directory being written or read.

    >>> with experiment("runs/x", command="wirelab reservoir run", config={"seed": 0}) as rd:
    ...     rd.save_figure(fig, "score")           # runs/x/score.png
    ...     rd.finish({"accuracy": 0.99})          # runs/x/metrics.json, marks the run complete
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock: int | None = None
        self._unlock: weakref.finalize | None = None

    @classmethod
    def create(
        cls,
        out: str | Path,
        *,
        command: str,
        config: Mapping[str, Any],
        overwrite: bool = False,
        resume: bool = False,
    ) -> ResultDir:
        """Start a run in ``out``: refuse a finished one unless asked (and one still alive in all
        cases), clear stale results, lock and mark it."""
        path = Path(out)
        if path.exists() and not path.is_dir():
            raise UsageError(f"--out {path} exists and is not a directory")
        rd = cls(path)
        rd._refuse_finished(overwrite or resume)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create --out {path}: {exc.strerror or exc}") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"cannot write to --out {path}: permission denied")
        rd._hold_lock()
        try:
            rd._refuse_finished(overwrite or resume)  # again, now that no other run can finish
        except UsageError:
            rd.release()
            raise
        held_run = (path / CONFIG).is_file()  # stale figures exist only where a run was before
        write_json(
            path / IN_PROGRESS,
            {"pid": os.getpid(), "host": platform.node(), "started": _now(), "command": command},
        )
        for stale in [path / METRICS, path / FAILED]:
            stale.unlink(missing_ok=True)
        if not resume and held_run:  # a user's own pictures in a fresh --out are theirs
            for p in path.iterdir():
                if p.is_file() and p.suffix in STALE_SUFFIXES:
                    p.unlink()
        write_json(
            path / CONFIG,
            {
                "command": command,
                "config": dict(config),
                "argv": sys.argv,
                "environment": environment(),
                "started": _now(),
            },
        )
        return rd

    def _refuse_finished(self, allowed: bool) -> None:
        previous = self.status
        if previous in ("complete", "failed") and not allowed:
            raise UsageError(
                f"{self.path} already holds a {previous} run; pass --overwrite or choose another "
                "--out"
            )

    def _hold_lock(self) -> None:
        """Lock the directory until `release` (also called when this object is collected)."""
        self._lock = lock_dir(self.path)
        self._unlock = weakref.finalize(self, unlock_dir, self.path, self._lock, os.getpid())

    def release(self) -> None:
        """Release this run's lock of its directory (idempotent); done by `finish` and `fail`."""
        if self._unlock is not None:
            self._unlock()

    @classmethod
    def open(cls, path: str | Path) -> ResultDir:
        p = Path(path)
        if not (p / CONFIG).is_file():
            raise UsageError(f"{p} is not a wirelab result directory (no config.json)")
        return cls(p)

    @property
    def config(self) -> dict[str, Any]:
        return dict(read_json(self.path / CONFIG))

    @property
    def status(self) -> str:
        """``complete``, ``failed``, ``in progress`` (running or killed) or ``empty``."""
        if (self.path / IN_PROGRESS).is_file():
            return "in progress"
        if (self.path / FAILED).is_file():
            return "failed"
        if (self.path / METRICS).is_file():
            return "complete"
        return "empty"

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def metrics(self) -> dict[str, Any]:
        p = self.path / METRICS
        return dict(read_json(p)) if p.is_file() else {}

    def finish(self, metrics: Mapping[str, Any]) -> dict[str, Any]:
        """Write ``metrics.json`` last and mark the run complete; returns the metrics as written.

        Non-finite numbers become ``null`` and their keys are listed under ``"non_finite"``.
        """
        clean, bad = sanitize(dict(metrics))
        if bad:
            clean["non_finite"] = sorted(set(clean.get("non_finite") or []) | set(bad))
        write_json(self.path / METRICS, clean)
        (self.path / IN_PROGRESS).unlink(missing_ok=True)
        self.release()
        return dict(clean)

    # Kept for callers that write metrics in pieces; both finish the run.
    def write_metrics(self, metrics: Mapping[str, Any]) -> Path:
        self.finish(metrics)
        return self.path / METRICS

    def update_metrics(self, extra: Mapping[str, Any]) -> Path:
        merged = self.metrics
        merged.update(extra)
        return self.write_metrics(merged)

    def fail(self, exc: BaseException) -> None:
        """Record that the run stopped with ``exc`` (``failed.json``); no metrics are written."""
        write_json(self.path / FAILED, {"error": one_line(exc), "ended": _now()})
        (self.path / IN_PROGRESS).unlink(missing_ok=True)
        self.release()

    def write_json(self, name: str, obj: Any) -> Path:
        return write_json(self.path / name, obj)

    def save_figure(self, fig: Any, name: str, *, dpi: int = 120) -> Path:
        """Save a matplotlib figure as ``<name>.png`` atomically and close it."""
        import io

        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
        plt.close(fig)
        return atomic_write_bytes(self.path / f"{name}.png", buf.getvalue())


@contextmanager
def experiment(
    out: str | Path,
    *,
    command: str,
    config: Mapping[str, Any],
    overwrite: bool = False,
    resume: bool = False,
) -> Iterator[ResultDir]:
    """Create a result directory for one run; a run that raises is recorded as failed.

    The body must end with ``rd.finish(metrics)``. An exception (including Ctrl-C and SIGTERM,
    see `sigterm_raises`) writes ``failed.json`` with its one-line reason and is re-raised; a
    body that returns without finishing leaves the directory marked in progress, never complete.
    The directory's lock is held until the run finishes or fails, or the body ends.
    """
    rd = ResultDir.create(out, command=command, config=config, overwrite=overwrite, resume=resume)
    try:
        with sigterm_raises():
            yield rd
    except BaseException as exc:
        rd.fail(exc)
        raise
    finally:
        rd.release()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
