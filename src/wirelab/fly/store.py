"""The resumable study store: finished work kept on disk, so that a killed study resumes.

One policy for every study that keeps its finished work (the turn study's runs in ``out/runs/``,
`wirelab.fly.turns.runs`; the taxis study's one-fly trials in ``out/trials/``,
`wirelab.fly.taxis.trials`):

1. ``--resume`` continues only with the settings the study was started with:
   `resumable_experiment` compares the given configuration with the saved ``config.json``
   (`saved_config_differences`, through `wirelab.config_diff.changed_options`; only `RESUMABLE`
   settings such as ``workers`` may change) and refuses with the differences named. A fresh start
   (no ``--resume``) clears the saved work of an earlier study in the same folder.
2. Each finished item (a run, a trial) is one ``.npz`` in that folder, ``<name>.npz``, written
   atomically (`wirelab.data.npzfile.save_npz`: a temporary file, then a rename), so an item is
   either there whole or absent. Its arrays are stored as arrays; its other fields (the
   ``record``, plain JSON values) and its ``fingerprint`` as JSON text in the array ``meta``.
   The fingerprint is a SHA-256 of everything that decides the item (`fingerprint`).
3. A saved item is reused only when it reads back and its fingerprint equals the one asked for;
   an item that is absent, unreadable or has another fingerprint is run again (and saved over).
   Files are read with ``allow_pickle=False``: a result directory from someone else cannot run
   code here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.config_diff import changed_options
from wirelab.data.npzfile import read_npz, save_npz
from wirelab.errors import UsageError
from wirelab.results import ResultDir, experiment, read_json, refuse_finished_resume

RESUMABLE = (
    "workers",
    "backend",
    "address",
)  # settings a resume may change: they do not change any result


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


def item_path(folder: Path, name: str) -> Path:
    return folder / f"{name}.npz"


def save_item(
    folder: Path,
    name: str,
    key: str,
    record: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
) -> Path:
    """Write one item to ``folder/<name>.npz`` atomically (module docstring); returns the path."""
    if "meta" in arrays:
        raise ValueError("'meta' is the store's own array name")
    meta = json.dumps({"fingerprint": key, "record": dict(record)}, default=_plain)
    path = item_path(folder, name)
    save_npz(path, {"meta": np.array(meta), **arrays}, compress=False)
    return path


def load_item(
    folder: Path, name: str, key: str
) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """The saved item's record and arrays when it reads back with fingerprint ``key``; else
    None (absent, unreadable, or another fingerprint: run it again)."""
    z = read_npz(item_path(folder, name))
    if z is None or "meta" not in z:
        return None
    try:
        meta = json.loads(str(z.pop("meta")))
    except json.JSONDecodeError:
        return None
    if not isinstance(meta, dict) or meta.get("fingerprint") != key:
        return None
    record = meta.get("record")
    return (dict(record), z) if isinstance(record, dict) else None


def saved_config_differences(out: Path, config: Mapping[str, Any]) -> list[str]:
    """``name: saved -> given`` for every setting that differs from ``out/config.json``."""
    path = out / "config.json"
    if not path.is_file():
        raise UsageError(f"--resume: {path} does not exist (nothing to resume)")
    try:
        saved = read_json(path)["config"]
    except (ValueError, KeyError, TypeError):
        raise UsageError(f"--resume: {path} is not a wirelab config.json") from None
    given = json.loads(json.dumps(config))  # tuples -> lists, as saved
    return changed_options(saved, given, ignore=RESUMABLE)


@contextmanager
def resumable_experiment(
    out: Path,
    command: str,
    config: Mapping[str, Any],
    folder: str,
    *,
    overwrite: bool = False,
    resume: bool = False,
) -> Iterator[tuple[ResultDir, Path]]:
    """`wirelab.results.experiment` for a study whose finished work lives in ``out/folder``:
    yields the result directory and that folder (policy 1 of the module docstring)."""
    if resume:
        changed = saved_config_differences(Path(out), config)
        if changed:
            raise UsageError(
                f"--resume: settings differ from {out} (saved -> given): " + "; ".join(changed)
            )
        refuse_finished_resume(out)
    store = Path(out) / folder
    with experiment(out, command=command, config=config, overwrite=overwrite, resume=resume) as rd:
        if not resume and store.is_dir():
            for stale in store.glob("*.npz"):
                stale.unlink()
        yield rd, store
