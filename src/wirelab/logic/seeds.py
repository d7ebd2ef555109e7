"""One recipe, several seeds: ``wirelab logic train --recipe R --seeds 0,1,2 --out DIR``.

Each seed is one job of the study executor (`wirelab.parallel`: ``--workers``, ``--backend``,
``--address``): `wirelab.logic.training.run` with the recipe's configuration and that seed, into its
own result directory ``DIR/seeds/seed-<s>/`` (written on the worker's machine; with Ray on a
cluster without a shared file system the run's files travel back, as a sweep's points do).
``DIR`` itself is a result directory whose ``metrics.json`` lists every seed's accuracies and
gates (``runs``, in seed order) and their mean and sample standard deviation over seeds::

    mean = sum_s a_s / n        sd = sqrt(sum_s (a_s - mean)^2 / (n - 1))     (n >= 2; else 0)

Beside them, each run's first time to 97% validation accuracy (``val_97``: the step and the
training seconds, or null; `first_reach`). ``curves.png``: every seed's validation accuracy
(discrete and soft) over training (`curves_figure`).

Where the workers share this machine's files (``--backend local``, or Ray started here without
``--address``), each seed trains straight into ``DIR/seeds/seed-<s>/`` and writes its checkpoints
there, so ``--resume`` continues a killed study: finished seeds are read back, a seed with a
checkpoint continues from it (bit-identical, as a single run's ``--resume``), the rest start.
The study's progress bar then follows the training itself: the training left at the start done so
far, from every seed's ``progress.json`` (``step / steps``; `watch`), so an hour-long study shows
its estimate from the first validation on, not only when a seed finishes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import CorruptDataError, UsageError
from wirelab.logic.checkpoint import progress_fraction
from wirelab.logic.config import TrainConfig, from_dict, resolve
from wirelab.parallel import POOLS, ExecOptions, Job, map_jobs
from wirelab.progress import progress_bar
from wirelab.results import METRICS, ResultDir, experiment, read_json, sanitize
from wirelab.sweep.runner import collect_files, write_files

COMMAND = "wirelab logic train --seeds"
MILESTONE = 0.97  # validation accuracy each run's first time to is reported (the 2022 paper's
# 10-class MNIST level; the time-to-accuracy benchmark's target)
POLL = 5.0  # seconds between two reads of the seeds' progress files
MAX_SEEDS = 10_000  # one training run each: more is a typo, never a study
KEPT = ("accuracy_soft", "accuracy_discrete", "gates", "best_step", "steps_run", "epochs_run")


def seed_job(
    config: TrainConfig, seed: int, dest: str | None = None, resume: bool = False
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Train ``config`` with ``seed``: in ``dest`` (a directory this worker shares; no files
    returned), resuming there when asked, or in a temporary directory whose files it returns."""
    from wirelab.logic.training import run

    if dest is not None:
        path = Path(dest)
        if resume and ResultDir(path).status == "complete":
            return read_json(path / METRICS), {}
        again = resume and (path / "checkpoint.pt").exists()
        cfg = replace(config, seed=seed)
        return run(cfg, path, overwrite=not again, resume=again, quiet=True), {}
    tmp = Path(tempfile.mkdtemp(prefix=f"wirelab-seed-{seed}-"))
    try:
        metrics = run(replace(config, seed=seed), tmp / "run", quiet=True)
        return metrics, collect_files(tmp / "run")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def parse_seeds(text: str) -> list[int]:
    """``"0,1,2"`` or ``"3"`` (the seeds 0, 1, 2: a count) -> distinct seeds in [0, 2**32 - 1],
    at most `MAX_SEEDS` of them; one-line error."""
    if len(text) > 20 * MAX_SEEDS:  # int() of a huge string is itself slow
        raise UsageError(f"--seeds: at most {MAX_SEEDS} seeds")
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(
            f"--seeds must be a count or a comma list of seeds, got {text!r}"
        ) from None
    if len(values) == 1 and "," not in text:
        if not 1 <= values[0] <= MAX_SEEDS:
            raise UsageError(f"--seeds: a count must be in [1, {MAX_SEEDS}], got {text!r}")
        values = list(range(values[0]))
    if len(values) > MAX_SEEDS:
        raise UsageError(f"--seeds: at most {MAX_SEEDS} seeds, got {len(values)}")
    if not values or min(values) < 0 or len(set(values)) != len(values):
        raise UsageError(f"--seeds needs distinct seeds >= 0, got {text!r}")
    if max(values) >= 2**32:
        raise UsageError(f"--seeds: each seed must be in [0, 2**32 - 1], got {max(values)}")
    return values


def first_reach(history: list[dict[str, Any]], level: float) -> dict[str, Any] | None:
    """The first validation at which the discrete network reached ``level``: its ``step`` (or
    ``epoch``) and ``train_seconds`` (optimisation only, validations not counted); None if none."""
    for rec in history:
        if rec.get("val_discrete", 0.0) >= level:
            keys = ("step", "epoch", "train_seconds")
            return {k: rec[k] for k in keys if rec.get(k) is not None}
    return None


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean and sample sd over seeds of each accuracy (module docstring)."""
    out: dict[str, Any] = {}
    for key in ("accuracy_soft", "accuracy_discrete"):
        a = np.array([r[key] for r in runs], dtype=np.float64)
        out[f"{key}_mean"] = float(a.mean())
        out[f"{key}_sd"] = float(a.std(ddof=1)) if len(a) > 1 else 0.0
    return out


def run(
    config: TrainConfig,
    seeds: list[int],
    out: Path,
    *,
    options: ExecOptions | None = None,
    overwrite: bool = False,
    resume: bool = False,
    quiet: bool = False,
) -> dict[str, Any]:
    """Every seed of ``config`` as a job; ``out`` holds the per-seed runs and their summary.
    ``resume`` continues the killed study in ``out`` (module docstring)."""
    config.validate()
    options = options or ExecOptions()
    options.validate()
    record = {"train": asdict(config), "seeds": seeds, **asdict(options)}
    if resume:
        _refuse_other_study(Path(out), record)
    here = shares_files(options)
    with experiment(out, command=COMMAND, config=record, overwrite=overwrite, resume=resume) as rd:
        if not resume:  # an overwritten study's old seeds would look finished
            shutil.rmtree(rd.path / "seeds", ignore_errors=True)
        dest = {s: str(rd.path / "seeds" / f"seed-{s}") if here else None for s in seeds}
        jobs = [Job(f"seed {s}", seed_job, (config, s, dest[s], resume)) for s in seeds]
        options = replace(options, threads=config.threads)
        workers = f" x{options.workers}" if options.workers else ""
        desc = f"logic seeds: {len(seeds)} seeds, {options.backend}{workers}"
        with watch(dest, desc, show=not quiet) as finished:
            results = map_jobs(
                jobs, options, show=False, on_result=lambda r: finished(seeds[r.index])
            )
        runs = []
        histories: dict[int, list[dict[str, Any]]] = {}
        for seed, (metrics, files) in zip(seeds, results, strict=True):
            if files:
                write_files(rd.path / "seeds" / f"seed-{seed}", files)
            histories[seed] = metrics.get("history") or []
            reached = first_reach(histories[seed], MILESTONE)
            runs.append({"seed": seed, **{k: metrics.get(k) for k in KEPT}, "val_97": reached})
        if any(histories.values()):
            rd.save_figure(curves_figure(histories), "curves")
        return rd.finish({"runs": runs, **summary(runs)})


@contextmanager
def watch(dirs: dict[int, str | None], desc: str, *, show: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar over the training a study has left (module docstring), read every `POLL`
    seconds; yields the callback that marks a seed's result as back. A seed's share is

        f_s = 1 (result back, or complete at the start) | step_s / steps_s (``progress.json``) | 0

    and the bar shows ``sum_s (f_s - f_s(start)) / sum_s (1 - f_s(start))``."""
    back = {s for s, d in dirs.items() if d is not None and ResultDir(Path(d)).complete}

    def share(s: int) -> float:
        d = dirs[s]
        return 1.0 if s in back else progress_fraction(d) if d is not None else 0.0

    start = {s: share(s) for s in dirs}
    left = sum(1.0 - f for f in start.values())
    stop = threading.Event()
    with progress_bar(desc, total=1.0, show=show) as bar:

        def poll() -> None:
            while True:
                if left > 0:
                    bar.fraction(sum(share(s) - start[s] for s in dirs) / left)
                if stop.wait(POLL):
                    return

        thread = threading.Thread(target=poll, daemon=True)
        thread.start()
        try:
            yield back.add
        finally:
            stop.set()
            thread.join()


def shares_files(options: ExecOptions) -> bool:
    """Whether the workers write this machine's files: a back end that takes no address runs
    here, and one that does (Ray) runs here when none is given (it starts its cluster here)."""
    return not (POOLS.fact(options.backend, "address") and options.address)


def study_config(out: str | Path) -> dict[str, Any]:
    """The training options saved by the seeds study in ``out`` (for ``--resume``)."""
    return dict(_study_record(Path(out))["train"])


def _study_record(out: Path) -> dict[str, Any]:
    """The ``config`` of the seeds study's ``config.json`` in ``out``: a one-line error when it
    is missing (`UsageError`), not readable JSON or not a seeds study's (`CorruptDataError`)."""
    path = out / "config.json"
    if not path.is_file():
        raise UsageError(f"--resume: {path} does not exist")
    try:
        doc = read_json(path)
    except (OSError, ValueError, RecursionError) as exc:  # JSON and UTF-8 errors are ValueErrors
        why = exc.strerror if isinstance(exc, OSError) else type(exc).__name__
        raise CorruptDataError(f"--resume: {path} is not readable JSON ({why})") from None
    record = doc.get("config") if isinstance(doc, dict) else None
    if not isinstance(record, dict) or not isinstance(record.get("train"), dict):
        raise CorruptDataError(f"--resume: {path} is not a seeds study's")
    return record


def _refuse_other_study(out: Path, record: dict[str, Any]) -> None:
    """``--resume`` of a study with other options: a one-line `UsageError`, nothing touched.
    The training options are compared resolved (every model default filled in), so a study
    started from the library and resumed from the command line is the same study."""
    path = out / "config.json"
    saved = _study_record(out)  # first: a missing or foreign study is its own one-line error
    same = {
        "train": _resolved(dict(saved["train"])) == _resolved(record["train"]),
        "seeds": saved.get("seeds") == record["seeds"],
    }
    for key, ok in same.items():
        if not ok:
            raise UsageError(f"--resume: the {key} options differ from {path}'s")


def _resolved(train: dict[str, Any]) -> Any:
    """``train`` with every model default filled in, as JSON would hold it (None if invalid)."""
    try:
        cfg = resolve(from_dict(dict(train), "the study's training options"))
    except UsageError:
        return None
    return json.loads(json.dumps(sanitize(asdict(cfg))[0]))


def curves_figure(histories: dict[int, list[dict[str, Any]]], title: str = "") -> Any:
    """One line per seed: validation accuracy of the discrete network (solid) and of the relaxed
    one (dashed) against the step (or the epoch, for runs counted in epochs)."""
    from wirelab.plotting import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for i, (seed, h) in enumerate(sorted(histories.items())):
        key = "step" if h and h[0].get("step") is not None else "epoch"
        xs = [r[key] for r in h]
        color = f"C{i}"
        ax.plot(xs, [r["val_discrete"] for r in h], color=color, label=f"seed {seed}, discrete")
        ax.plot(xs, [r["val_soft"] for r in h], color=color, ls="--", lw=0.8, label="soft")
        ax.set_xlabel(key)
    lows = [r["val_discrete"] for h in histories.values() for r in h[len(h) // 4 :]]
    if lows:  # the top: the best of either curve (a hard-forward run's discrete is above its soft)
        top = max(max(r["val_soft"], r["val_discrete"]) for h in histories.values() for r in h)
        ax.set_ylim(min(lows) - 0.005, top + 0.003)
    ax.set_ylabel("validation accuracy")
    ax.set_title(title, fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return fig
