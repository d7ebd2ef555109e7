"""Result directories: the one way every experiment writes its output.

A result directory holds
- ``config.json``: everything needed to rerun (the command, its arguments, the seed, the wirelab,
  Python, numpy and torch versions, the host), written when the run starts;
- ``metrics.json``: the numbers, written when the run ends (its presence marks a complete run);
- plots (PNG) and artifacts (trained models, generated sources).

Every file is written atomically (temporary file in the same directory, then ``os.replace``), so an
interrupted run never leaves a half-written JSON or plot behind.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from wirelab import __version__
from wirelab.errors import UsageError


def _default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"cannot write {type(obj).__name__} to JSON")


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file and an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_json(path: Path, obj: Any) -> Path:
    text = json.dumps(obj, indent=2, default=_default, allow_nan=False)
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


class ResultDir:
    """A result directory being written.

    >>> rd = ResultDir.create("runs/x", command="wirelab reservoir run", config={"seed": 0})
    >>> rd.save_figure(fig, "score")           # runs/x/score.png
    >>> rd.write_metrics({"accuracy": 0.99})   # runs/x/metrics.json, marks the run complete
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
        overwrite: bool = True,
    ) -> ResultDir:
        path = Path(out)
        if path.exists() and not path.is_dir():
            raise UsageError(f"--out {path} exists and is not a directory")
        if not overwrite and (path / "metrics.json").exists():
            raise UsageError(f"{path} already holds a finished run; choose another --out")
        path.mkdir(parents=True, exist_ok=True)
        rd = cls(path)
        write_json(
            path / "config.json",
            {
                "command": command,
                "config": dict(config),
                "argv": sys.argv,
                "environment": environment(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            },
        )
        return rd

    @classmethod
    def open(cls, path: str | Path) -> ResultDir:
        p = Path(path)
        if not (p / "config.json").is_file():
            raise UsageError(f"{p} is not a wirelab result directory (no config.json)")
        return cls(p)

    @property
    def config(self) -> dict[str, Any]:
        return dict(read_json(self.path / "config.json"))

    @property
    def complete(self) -> bool:
        return (self.path / "metrics.json").is_file()

    @property
    def metrics(self) -> dict[str, Any]:
        p = self.path / "metrics.json"
        return dict(read_json(p)) if p.is_file() else {}

    def write_metrics(self, metrics: Mapping[str, Any]) -> Path:
        return write_json(self.path / "metrics.json", dict(metrics))

    def update_metrics(self, extra: Mapping[str, Any]) -> Path:
        merged = self.metrics
        merged.update(extra)
        return self.write_metrics(merged)

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
