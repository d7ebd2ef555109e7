"""The turn study: does one-sided stimulation turn the fly, and does the turn come from the wiring?

For every seed ``s`` and model ``m`` (the row-normalised connectome, its spectral scaling, the
mirrored connectome, ``nulls`` nulls of each family of ``null_family``, a `NULLS` name such as
``degree`` or ``degree-boundary``, seeds ``null_seed + i``) the fly walks with the resting drive
through the start-up transient (``settle`` s), then its left or right olfactory neurons are
stimulated for ``duration`` s (`wirelab.fly.turns.runs`). The control run of seed ``s`` walks
the same seed without stimulation; with the evoked mapping (or any mapping at zero input) its
drive is ``[offset, offset]`` whatever the model, so one control per seed serves every model. Per
model and condition ``c`` with turns ``T_c(s)`` (degrees from stimulus onset, CCW positive)::

    mean T_c  +-  t_{0.975, n-1} * sd(T_c) / sqrt(n)                     95% CI, n seeds
    D_c(s) = T_c(s) - T_control(s)       paired difference to the control (removes the drift)
    D_LR(s) = T_left(s) - T_right(s)     paired left-minus-right difference

With nulls, the first model's ``|mean D_LR|`` is ranked among each family's nulls' (rank p, z,
difference: `wirelab.fly.turns.stats.compare_nulls`), ``metrics["nulls"]``.
Every run is a job of the study executor (`wirelab.parallel`: ``--workers``, ``--backend``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from wirelab.data.connectomes import SIDES
from wirelab.errors import UsageError
from wirelab.fly.bodies import body_class, executor
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.envs import in_fly_env
from wirelab.fly.limits import MAX_STEPS, check_count, check_seconds, check_seeds
from wirelab.fly.mapping import FixedMapping, default_mapping
from wirelab.fly.store import resumable_experiment
from wirelab.fly.turns.runs import RUNS, RunSpec, load_run, model_names, run_one, save_run
from wirelab.fly.turns.stats import compare_nulls, null_family
from wirelab.fly.turns.timing import PartLog, earlier_parts, timing_summary
from wirelab.parallel import ExecOptions, Job, JobResult, map_jobs
from wirelab.reservoir.nulls import NULLS


@dataclass(frozen=True)
class TurnsConfig:
    """Seeds, models, timing, mapping, body and video of the turn study.

    ``nulls`` nulls of each family in ``null_family`` (`NULLS` names), seeds ``null_seed + i``;
    ``null_seeds`` (None: ``seeds``; ``--null-walk-seeds``, old name ``--null-seeds``) runs the
    nulls on the first seeds only (a count; ``null_seed`` is a seed); ``video`` films seed 0
    of left, control and right for the first model (every ``frame_every`` physics steps at
    ``frame_size`` pixels).
    """

    seeds: int = 2
    models: tuple[str, ...] = ("row",)
    nulls: int = 2
    null_family: tuple[str, ...] = ("degree",)
    null_seed: int = 0
    null_seeds: int | None = None
    settle: float = 2.0
    duration: float = 2.0
    mapping: FixedMapping = field(default_factory=default_mapping)
    controller: ControllerConfig = field(default_factory=ControllerConfig)
    body: str = "flygym"
    timestep: float = 1e-4
    workers: int | None = None
    backend: str = "local"
    address: str | None = None
    video: bool = True
    frame_every: int = 200
    frame_size: tuple[int, int] = (240, 240)
    connectome: str = "larva"

    def validate(self) -> list[str]:
        """The expanded model names; a one-line `UsageError` for bad settings."""
        finite = all(np.isfinite(x) for x in (self.settle, self.duration, self.timestep))
        if not finite or self.settle < 0 or self.duration <= 0:
            raise UsageError("settle must be >= 0 and duration > 0 (finite seconds)")
        if self.seeds < 2:
            raise UsageError("--seeds must be >= 2 (a confidence interval needs two)")
        check_count(self.seeds, "--seeds", low=2)
        check_count(self.nulls, "--nulls")
        check_seeds(self.null_seed, max(1, self.nulls), "--null-seed")
        if not self.null_family or len(set(self.null_family)) < len(self.null_family):
            raise UsageError("--null-family must name each family once")
        for family in self.null_family:
            NULLS.get(family)  # an unknown family: one line
        check_count(self.frame_every, "--frame-every", MAX_STEPS, low=1)
        walk = self.settle + self.duration  # one run: settle, then walk
        check_seconds(
            walk,
            "--settle + --duration",
            self.body,
            timestep=self.timestep,
            interval=self.controller.update_interval,
        )
        if self.null_seeds is not None and not 2 <= self.null_seeds <= self.seeds:
            raise UsageError(
                f"--null-walk-seeds {self.null_seeds} is how many fly seeds the nulls walk, "
                f"2 .. --seeds ({self.seeds}); the nulls' rewiring seed is --null-seed"
            )
        self.executor()  # bad --workers/--backend/--address: one line
        if self.video and not body_class(self.body).renders_video:
            raise UsageError(f"--video needs a body that renders, not {self.body!r}")
        names = self.model_names()
        if not names:
            raise UsageError("no model to run")
        return names

    def model_names(self) -> list[str]:
        """The models, ``null`` expanded per family (`model_names`; unknown names: one line)."""
        return model_names(self.models, self.nulls, self.null_family, self.null_seed)

    def executor(self) -> ExecOptions:
        """Where the runs go (``--workers`` checked against memory for a flygym body)."""
        return executor(self.body, self.workers, self.backend, self.address)

    def specs(self) -> list[RunSpec]:
        """Every run: one control per seed, left and right per model and seed."""
        names = self.validate()
        base = RunSpec(
            model=names[0],
            condition="control",
            seed=0,
            settle=self.settle,
            duration=self.duration,
            mapping=self.mapping,
            controller=self.controller,
            body=self.body,
            timestep=self.timestep,
            frame_every=self.frame_every,
            frame_size=self.frame_size,
            connectome=self.connectome,
        )
        out = [replace(base, seed=s, frames=self.video and s == 0) for s in range(self.seeds)]
        for m in names:
            n = self.null_seeds if (null_family(m) and self.null_seeds) else self.seeds
            for s in range(n):
                for c in SIDES:
                    video = self.video and s == 0 and m == names[0]
                    out.append(replace(base, model=m, condition=c, seed=s, frames=video))
        return out


def mean_ci(x: Sequence[float]) -> dict[str, Any]:
    """Mean and Student-t 95% interval of ``x`` (``n >= 2``)."""
    a = np.asarray(x, dtype=np.float64)
    n = len(a)
    m = float(a.mean())
    half = float(stats.t.ppf(0.975, n - 1) * a.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
    return {"n": n, "mean": m, "ci": [m - half, m + half], "excludes_zero": bool(abs(m) > half)}


def summarize(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model: left, right, their paired differences to the control and to each other."""
    ctrl = {r["seed"]: r["turn_deg"] for r in runs if r["condition"] == "control"}
    models = list(dict.fromkeys(r["model"] for r in runs if r["condition"] != "control"))
    rows = [{"model": "(all)", "condition": "control", "turn": mean_ci(list(ctrl.values()))}]
    for m in models:
        turn = {
            c: {r["seed"]: r["turn_deg"] for r in runs if r["model"] == m and r["condition"] == c}
            for c in SIDES
        }
        for c in SIDES:
            seeds = sorted(turn[c])
            rows.append(
                {
                    "model": m,
                    "condition": c,
                    "turn": mean_ci([turn[c][s] for s in seeds]),
                    "minus_control": mean_ci([turn[c][s] - ctrl[s] for s in seeds]),
                }
            )
        seeds = sorted(set(turn["left"]) & set(turn["right"]))
        rows.append(
            {
                "model": m,
                "condition": "left-right",
                "turn": mean_ci([turn["left"][s] - turn["right"][s] for s in seeds]),
            }
        )
    return rows


def run_all(
    specs: Sequence[RunSpec],
    options: ExecOptions,
    show: bool = True,
    store: Path | None = None,
    log: PartLog | None = None,
) -> tuple[list[dict[str, Any]], float, int]:
    """Run ``specs`` as jobs (`wirelab.parallel`); results in spec order, the wall-clock seconds
    of this call and how many runs were loaded instead of simulated.

    With ``store`` (a folder), every finished run is saved there as it ends and runs already
    saved there with the same fingerprint are loaded instead of simulated (`wirelab.fly.store`);
    ``log`` (`wirelab.fly.turns.timing.PartLog`) is told each saved run."""
    results = [load_run(store, s) if store is not None else None for s in specs]
    todo = [i for i, r in enumerate(results) if r is None]
    t0 = time.perf_counter()
    saved = len(specs) - len(todo)
    label = f"turns: {len(todo)} runs" + (f" ({saved} saved)" if saved else "")
    jobs = [
        Job(f"{specs[i].model} {specs[i].condition} seed {specs[i].seed}", run_one, (specs[i],))
        for i in todo
    ]

    def keep(result: JobResult) -> None:
        if store is not None:
            save_run(store, specs[todo[result.index]], result.value)
            if log is not None:
                log.tick()

    values = map_jobs(jobs, options, label=label, show=show, on_result=keep)
    for i, value in zip(todo, values, strict=True):
        results[i] = value
    return [r for r in results if r is not None], time.perf_counter() - t0, saved


@in_fly_env
def run(
    config: TurnsConfig,
    out: Path,
    *,
    overwrite: bool = False,
    resume: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """The study into the result directory ``out``: ``metrics.json`` (``table``, ``nulls``: the
    first model against each null family, every run's turn, timings), ``headings.png``,
    ``turns.png`` and, with ``video``, ``video.mp4`` and ``video_strip.png``; every finished run
    is kept in ``out/runs/`` as it ends, and ``resume=True`` continues a killed study from them
    (the settings must equal the saved ``config.json``'s, except ``workers``, ``backend`` and
    ``address``); ``timing`` then counts every part's seconds, not only the resumed part's
    (`wirelab.fly.turns.timing.timing_summary`). Returns the metrics."""
    from wirelab.fly.turns.video import heading_plot, null_plot, turn_plot, write_video

    specs = config.specs()  # validates
    cfg = asdict(config)
    earlier = earlier_parts(out, Path(out) / RUNS, resume)  # before metrics.json is cleared
    with resumable_experiment(
        out, "wirelab fly turns", cfg, RUNS, overwrite=overwrite, resume=resume
    ) as (rd, store):
        log = PartLog.start(store, earlier)
        runs, wall, loaded = run_all(specs, config.executor(), show=progress, store=store, log=log)
        table = summarize(runs)
        first = config.model_names()[0]
        rd.save_figure(heading_plot(runs, first, config.settle), "headings")
        rd.save_figure(turn_plot(table), "turns")
        metrics: dict[str, Any] = {
            "table": table,
            "runs": [
                {k: v for k, v in r.items() if k not in ("time", "heading", "position", "frames")}
                for r in runs
            ],
            "timing": timing_summary(runs, log.close(wall, loaded)),
        }
        nulls = compare_nulls(table)
        if nulls:
            metrics["nulls"] = nulls
            rd.save_figure(null_plot(nulls), "nulls")
        if config.video:
            filmed = {r["condition"]: r for r in runs if r["frames"]}
            t_video = time.perf_counter()
            write_video(filmed, rd.path / "video.mp4", config.settle, rd.path / "video_strip.png")
            metrics["timing"]["compose_video_s"] = time.perf_counter() - t_video
            metrics["video"] = str(rd.path / "video.mp4")
        return rd.finish(metrics)
