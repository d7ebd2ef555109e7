"""Run files of ``wirelab logic train``: ``checkpoint.pt`` and ``model.pt``, saved and read safely.

Both hold only tensors and plain Python types and are read with
``torch.load(weights_only=True)``, so loading a run directory from someone else cannot execute
code. A file that is empty, truncated or not a wirelab run file gives one line naming it.

- ``checkpoint.pt`` (rewritten atomically at every validation)::

      {"format": CHECKPOINT_FORMAT, "config": TrainConfig fields, "step": int,
       "model": state_dict, "optimizer": state_dict, "history": [record, ...],
       "best": {"val": float, "step": int, "epoch": int | float, "state": state_dict | None},
       "train_seconds": float}

- ``model.pt``: ``{"spec": resolved LogicNet spec, "state_dict": ...}`` (the best weights).
- ``progress.json``: ``{"step": int, "steps": int}``, rewritten with every checkpoint, so a
  watcher (a seeds study's progress bar, a user's ``cat``) reads how far a run is without
  loading the checkpoint.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import torch

from wirelab.errors import UsageError
from wirelab.logic.model import LogicNet, resolve_spec
from wirelab.results import atomic_write_bytes

CHECKPOINT = "checkpoint.pt"
MODEL = "model.pt"
PROGRESS = "progress.json"
CHECKPOINT_FORMAT = "wirelab.logic.checkpoint/2"
CHECKPOINT_KEYS = ("config", "step", "model", "optimizer", "history", "best", "train_seconds")


def save(path: Path, obj: dict[str, Any]) -> Path:
    """``torch.save`` to a temporary file, then an atomic rename."""
    buf = io.BytesIO()
    torch.save(obj, buf)
    return atomic_write_bytes(path, buf.getvalue())


def write_progress(run_dir: Path, step: int, steps: int) -> None:
    """``progress.json`` of the run in ``run_dir``: ``step`` of ``steps`` taken (atomic)."""
    text = json.dumps({"step": int(step), "steps": int(steps)})
    atomic_write_bytes(Path(run_dir) / PROGRESS, text.encode())


def progress_fraction(run_dir: str | Path) -> float:
    """``step / steps`` from the ``progress.json`` in ``run_dir``, in [0, 1]; 0 when there is
    none yet or it cannot be read (a watcher never fails the run it watches)."""
    try:
        rec = json.loads((Path(run_dir) / PROGRESS).read_text())
        return min(max(float(rec["step"]) / float(rec["steps"]), 0.0), 1.0)
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
        return 0.0


def first_words(text: str, limit: int = 100) -> str:
    """The first line of ``text`` (terminal colour codes removed, spaces collapsed), cut after
    its last whole word within ``limit`` characters and marked `` ...``; never cut inside a word
    (a line with no space there is kept whole)."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)  # torch's messages hold bold codes
    line = " ".join((text.strip().splitlines() or [""])[0].split())
    if len(line) <= limit:
        return line
    head = line[: limit + 1]  # one more: a word that ends exactly at ``limit`` is whole
    if " " not in head:
        return line
    return head.rsplit(" ", 1)[0] + " ..."


def load_file(path: str | Path, what: str) -> dict[str, Any]:
    """A run file as a dict, loaded with ``weights_only=True``; `UsageError` naming the file."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{p} does not exist")
    try:
        obj = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for damaged or foreign files
        first = first_words(str(exc))
        reason = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
        raise UsageError(f"{p} is not a readable {what} ({reason})") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{p} is not a {what} (it holds a {type(obj).__name__})")
    return obj


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    ck = load_file(path, "wirelab logic checkpoint")
    missing = [k for k in CHECKPOINT_KEYS if k not in ck]
    if ck.get("format") != CHECKPOINT_FORMAT or missing or not isinstance(ck["config"], dict):
        raise UsageError(f"{path} is not a wirelab logic checkpoint of this version")
    return ck


def load_model(path: str | Path) -> LogicNet:
    """The `LogicNet` saved in a ``model.pt`` (or a run directory holding one)."""
    p = Path(path)
    p = p / MODEL if p.is_dir() else p
    saved = load_file(p, "wirelab logic model")
    if not isinstance(saved.get("spec"), dict) or not isinstance(saved.get("state_dict"), dict):
        raise UsageError(f"{p} is not a wirelab logic model (no spec and state_dict)")
    model = LogicNet(saved["spec"])
    _load_state(model, saved["state_dict"], p)
    return model


def _load_state(model: LogicNet, state: Any, source: Path) -> None:
    if not isinstance(state, dict):
        raise UsageError(f"{source} holds no model weights")
    try:
        model.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError):
        raise UsageError(f"{source} holds a different model") from None


def init_weights(model: LogicNet, source: str | Path) -> None:
    """Start ``model`` from a run directory, its ``model.pt``, or the best weights so far of a
    ``checkpoint.pt`` (the run's ``init_from``)."""
    p = Path(source)
    p = p / MODEL if p.is_dir() else p
    saved = load_file(p, "wirelab logic model or checkpoint")
    if "best" in saved and "model" in saved:  # a checkpoint.pt
        best = saved["best"] if isinstance(saved["best"], dict) else {}
        state = best.get("state") if best.get("state") is not None else saved["model"]
    else:
        spec = saved.get("spec")
        if not isinstance(spec, dict):
            raise UsageError(f"init_from: {p} is not a wirelab logic model")
        if resolve_spec(spec) != model.spec:
            raise UsageError(f"init_from: {p} has a different model spec")
        state = saved.get("state_dict")
    _load_state(model, state, p)
