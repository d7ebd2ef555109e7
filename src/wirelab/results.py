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

- ``.in-progress``: written first, before any work; removed when the run finishes or fails;
- ``config.json``: everything needed to rerun (the command, its configuration, the wirelab,
  Python, numpy and torch versions, the host);
- plots (PNG), videos and artifacts (trained models, generated sources);
- ``metrics.json``: the numbers, written last (with no ``.in-progress`` beside it, it marks a
  complete run), or ``failed.json`` (the one-line reason) when the run raised.

Its lifecycle: a new run into a directory that holds a finished or failed run refuses with one
line unless ``overwrite`` (or the command's own resume) is given; either way the previous
``metrics.json``, ``failed.json`` and plots are removed *before* any work, so a killed rerun can
never be shown as complete. Every file is written atomically (temporary file in the same
directory, then ``os.replace``) with mode ``0666 & ~umask`` (0644 under umask 022).

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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from wirelab import __version__
from wirelab.errors import UsageError, WirelabError

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


def environment() -> dict[str, str]:
    env = {
        "wirelab": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": str(os.cpu_count()),
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        env["torch"] = str(torch.__version__)
    return env


def one_line(exc: BaseException) -> str:
    """The exception as one line: ``Type: message`` with whitespace collapsed."""
    text = " ".join(str(exc).split())
    if isinstance(exc, WirelabError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ResultDir:
    """A result directory being written or read.

    >>> with experiment("runs/x", command="wirelab reservoir run", config={"seed": 0}) as rd:
    ...     rd.save_figure(fig, "score")           # runs/x/score.png
    ...     rd.finish({"accuracy": 0.99})          # runs/x/metrics.json, marks the run complete
    """

    def __init__(self, path: Path) -> None:
        self.path = path

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
        """Start a run in ``out``: refuse a finished one unless asked, clear stale results, mark."""
        path = Path(out)
        if path.exists() and not path.is_dir():
            raise UsageError(f"--out {path} exists and is not a directory")
        rd = cls(path)
        previous = rd.status
        if previous in ("complete", "failed") and not (overwrite or resume):
            raise UsageError(
                f"{path} already holds a {previous} run; pass --overwrite or choose another --out"
            )
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create --out {path}: {exc.strerror or exc}") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"cannot write to --out {path}: permission denied")
        write_json(
            path / IN_PROGRESS,
            {"pid": os.getpid(), "host": platform.node(), "started": _now(), "command": command},
        )
        for stale in [path / METRICS, path / FAILED]:
            stale.unlink(missing_ok=True)
        if not resume:
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

    The body must end with ``rd.finish(metrics)``. An exception (including Ctrl-C) writes
    ``failed.json`` with its one-line reason and is re-raised; a body that returns without
    finishing leaves the directory marked in progress, never complete.
    """
    rd = ResultDir.create(out, command=command, config=config, overwrite=overwrite, resume=resume)
    try:
        yield rd
    except BaseException as exc:
        rd.fail(exc)
        raise


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
