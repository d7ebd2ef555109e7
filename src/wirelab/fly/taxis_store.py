"""Finished flygym taxis trials kept on disk, so that a killed study resumes where it stopped.

Each finished trial (`wirelab.fly.taxis_trials.trial`'s ``(Trace, result)``) is written as one
``.npz`` in ``<out>/trials/`` named ``<condition>_<index>.npz``, atomically (a temporary file,
then a rename), so a trial is either there whole or absent. The trace's arrays (one fly:
``time`` ``(S,)``, ``position`` ``(S, 1, 2)``, ``heading`` ``(S, 1)``, ``inputs``/``signal``/``dn``
``(S, 1, 2)``, the optional ``features``/``odor`` and ``final_position`` ``(1, 2)``) are stored as
arrays; the result dict as JSON text, with the trial's ``fingerprint``: a SHA-256 of everything
that decides the trial (policy, model, trained mapping, task and controller settings, body and
timestep). A saved trial is reused only when its fingerprint equals the one asked for, so a
resume with another readout reruns the trial instead of mixing results. Files are read with
``allow_pickle=False``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.data.npzfile import read_npz, save_npz
from wirelab.fly.loop import Trace

TRIALS = "trials"
TRACE_ARRAYS = ("time", "position", "heading", "inputs", "signal", "dn")
OPTIONAL_ARRAYS = ("features", "odor")


def _plain(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def fingerprint(*parts: Any) -> str:
    """SHA-256 over ``parts``: arrays by dtype, shape and bytes; anything else as JSON."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(f"{p.dtype}{p.shape}".encode())
            h.update(np.ascontiguousarray(p).tobytes())
        else:
            h.update(json.dumps(p, sort_keys=True, default=_plain).encode())
    return h.hexdigest()


def trial_path(folder: Path, condition: str, index: int) -> Path:
    return folder / f"{condition}_{index}.npz"


def save_trial(
    folder: Path, condition: str, index: int, trace: Trace, result: dict[str, Any], key: str
) -> Path:
    """Write one trial to ``folder/<condition>_<index>.npz`` atomically; returns the path."""
    path = trial_path(folder, condition, index)
    arrays = {k: np.asarray(getattr(trace, k)) for k in TRACE_ARRAYS}
    arrays.update({k: getattr(trace, k) for k in OPTIONAL_ARRAYS if getattr(trace, k) is not None})
    arrays["final_position"] = np.asarray(trace.extra["final_position"])
    meta = json.dumps({"fingerprint": key, "result": result}, default=_plain)
    save_npz(path, {"meta": np.array(meta), **arrays}, compress=False)
    return path


def load_trial(folder: Path, condition: str, index: int, key: str) -> tuple[Trace, dict] | None:
    """The saved trial when it exists, reads back and has fingerprint ``key``; else None."""
    z = read_npz(trial_path(folder, condition, index))
    if z is None:
        return None
    try:
        meta = json.loads(str(z["meta"]))
        if meta.get("fingerprint") != key:
            return None
        trace = Trace(
            **{k: z[k] for k in TRACE_ARRAYS},
            **{k: z[k] for k in OPTIONAL_ARRAYS if k in z},
            extra={"final_position": z["final_position"]},
        )
    except (KeyError, json.JSONDecodeError):
        return None
    return trace, dict(meta["result"])
