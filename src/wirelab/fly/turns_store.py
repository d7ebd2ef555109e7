"""Finished runs of the turn study kept on disk, so that a killed study resumes where it stopped.

Each finished run (`wirelab.fly.turns_runs.run_one`'s dict) is written as one ``.npz`` in
``<out>/runs/`` named by its model, condition and seed, atomically (a temporary file, then a
rename), so a run is either there whole or absent. The arrays (``time`` ``(S,)``, ``heading``
``(S,)``, ``position`` ``(S, 2)``, ``frames`` ``(F, H, W, 3)`` uint8 when filmed) are stored as
arrays; every other field as JSON text. Files are read with ``allow_pickle=False``: a result
directory from someone else cannot run code here.

`saved_config_differences` compares the configuration of a study being resumed with the one in
its ``config.json`` and lists what differs (``--resume`` refuses then); `resumable_experiment`
opens the result directory of a study that keeps its work in a sub-folder (the turn study's
``runs/``, the taxis study's ``trials/``): it refuses a resume with other settings, and a fresh
start clears the saved work of an earlier study.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.data.npzfile import save_npz
from wirelab.errors import UsageError
from wirelab.results import ResultDir, experiment, read_json

RUNS = "runs"
ARRAYS = ("time", "heading", "position")
RESUMABLE = ("workers",)  # settings a resume may change: they do not change any result


def run_key(model: str, condition: str, seed: int) -> str:
    return f"{model}_{condition}_{seed}"


def save_run(folder: Path, run: Mapping[str, Any]) -> Path:
    """Write ``run`` to ``folder/<key>.npz`` atomically; returns the path."""
    path = folder / f"{run_key(run['model'], run['condition'], run['seed'])}.npz"
    meta = {k: v for k, v in run.items() if k not in (*ARRAYS, "frames")}
    arrays = {k: np.asarray(run[k]) for k in ARRAYS}
    if run.get("frames") is not None:
        arrays["frames"] = np.asarray(run["frames"], dtype=np.uint8)
    save_npz(path, {"meta": np.array(json.dumps(meta)), **arrays}, compress=False)
    return path


def load_run(path: Path) -> dict[str, Any]:
    """One saved run as `run_one` returned it; a one-line `UsageError` naming a bad file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            run: dict[str, Any] = json.loads(str(z["meta"]))
            for k in ARRAYS:
                run[k] = z[k]
            run["frames"] = list(z["frames"]) if "frames" in z.files else None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
        raise UsageError(f"--resume: {path} is not a saved turn run ({exc})") from None
    return run


def load_runs(folder: Path) -> dict[str, dict[str, Any]]:
    """Every saved run in ``folder`` by key (empty when the folder does not exist)."""
    if not folder.is_dir():
        return {}
    runs = [load_run(p) for p in sorted(folder.glob("*.npz"))]
    return {run_key(r["model"], r["condition"], r["seed"]): r for r in runs}


def _flat(d: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(d, Mapping):
        return {prefix: d}
    out: dict[str, Any] = {}
    for k, v in d.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


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
    a, b = _flat(saved), _flat(given)
    keys = sorted((set(a) | set(b)) - set(RESUMABLE))
    return [f"{k}: {a.get(k)!r} -> {b.get(k)!r}" for k in keys if a.get(k) != b.get(k)]


@contextmanager
def resumable_experiment(
    out: Path, command: str, config: Mapping[str, Any], folder: str, *,
    overwrite: bool = False, resume: bool = False,
) -> Iterator[tuple[ResultDir, Path]]:  # fmt: skip
    """`wirelab.results.experiment` for a study whose finished work lives in ``out/folder``:
    yields the result directory and that folder."""
    if resume:
        changed = saved_config_differences(Path(out), config)
        if changed:
            raise UsageError(
                f"--resume: settings differ from {out} (saved -> given): " + "; ".join(changed)
            )
    store = Path(out) / folder
    with experiment(out, command=command, config=config, overwrite=overwrite, resume=resume) as rd:
        if not resume and store.is_dir():
            for stale in store.glob("*.npz"):
                stale.unlink()
        yield rd, store
