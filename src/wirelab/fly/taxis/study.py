"""The taxis study: baselines, teacher, the connectome and its nulls, trained then tested.

Training always runs on the kinematic body (`wirelab.fly.taxis.task.train_readout`): a readout
trained on the kinematic body is deployed on either body. Testing runs on the chosen body
(`test_all`): a body with ``supports_batch`` (kinematic) tests all ``trials`` flies of a condition
as one batch, one job per condition; any other body (flygym) runs one fly per job from the same
random starts, the trials of every condition at once (`wirelab.fly.taxis.trials`, a trial stops at
the source or when the fly leaves the arena), ``baseline_trials`` of them for the constant and
random baselines (which rarely reach the source). Conditions, in order (`run_study`): teacher,
constant, random (`BASELINES`), then per reservoir model (`reservoir_models`: the connectome, the
mirrored connectome, the degree-preserving nulls) its trained readout, and right after the
connectome ``input-only`` (antenna inputs straight to the drive,
`wirelab.fly.taxis.jobs.conditions`). The trainings, then the tests, are jobs of the study executor
(`wirelab.parallel`: ``--workers``, ``--backend``, ``--address``); each is seeded on its own, so the
rows do not depend on where they ran. `run` writes the result directory; see
`wirelab.fly.taxis.task` for the task.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.fly.bodies import body_class, executor, renderers
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.envs import in_fly_env
from wirelab.fly.limits import check_count, check_magnitude, check_seconds, check_seeds
from wirelab.fly.loop import Trace
from wirelab.fly.store import resumable_experiment
from wirelab.fly.taxis.jobs import Condition, Setup, conditions, test_job, train_job
from wirelab.fly.taxis.task import TaxisConfig, wilson
from wirelab.fly.taxis.trials import TRIALS, TrialSpec, run_conditions
from wirelab.parallel import ExecOptions, Job, map_jobs

BASELINES = ("teacher", "constant", "random")


def reservoir_models(
    con: Connectome, seed: int, n_nulls: int, mirror: bool
) -> list[tuple[str, sp.spmatrix | None]]:
    """The reservoirs under test by condition name: the connectome (its own weights, None), the
    mirrored connectome, and ``n_nulls`` degree-preserving nulls (seeds ``seed + i``)."""
    from wirelab.reservoir.nulls import degree_preserving, mirrored

    models: list[tuple[str, sp.spmatrix | None]] = [("connectome", None)]
    if mirror:
        models.append(("mirror", mirrored(con)))
    models += [(f"degree-null-{i}", degree_preserving(con, seed + i)) for i in range(n_nulls)]
    return models


@dataclass(frozen=True)
class TaxisStudyConfig:
    """The study: task and training (`TaxisConfig`), the controller, the test body, how many
    degree-preserving nulls, the mirrored connectome, and an optional video (a body that
    renders: its first test trial)."""

    taxis: TaxisConfig = field(default_factory=TaxisConfig)
    controller: ControllerConfig = field(default_factory=lambda: ControllerConfig(update_steps=50))
    body: str = "kinematic"
    nulls: int = 3
    mirror: bool = True
    video: Path | None = None
    connectome: str = "larva"
    timestep: float = 1e-4
    workers: int | None = None
    baseline_trials: int | None = None
    backend: str = "local"
    address: str | None = None

    def executor(self) -> ExecOptions:
        """Where the jobs run (``--workers`` checked against memory for a flygym body)."""
        return executor(self.body, self.workers, self.backend, self.address)

    def validate(self) -> None:
        if self.nulls < 0:
            raise UsageError("--nulls must be >= 0")
        if not (np.isfinite(self.taxis.time_limit) and np.isfinite(self.timestep)):
            raise UsageError("time limit and timestep must be finite")
        task = self.taxis
        check_count(self.nulls, "--nulls")
        for n, option in ((task.trials, "--trials"), (task.train_trials, "--train-trials")):
            check_count(n, option, low=1)
        if self.baseline_trials is not None:
            check_count(self.baseline_trials, "--baseline-trials", low=1)
        check_magnitude(task.arena_radius, "--arena-radius")
        check_magnitude(task.input_gain, "--input-gain")
        # seeds: the trials' seed + i, the nulls' seed + i, the task's own seed + 30000
        check_seeds(task.seed, 30_001 + max(task.trials, task.train_trials, self.nulls))
        check_seconds(
            task.time_limit,
            "--time-limit",
            self.body,
            timestep=self.timestep,
            interval=self.controller.update_interval,
            flies=task.trials if body_class(self.body).supports_batch else 1,
        )
        self.executor()
        if self.video and not body_class(self.body).renders_video:
            raise UsageError(
                f"--video needs a body that renders: --body {' or '.join(renderers())}"
            )


def trial_specs(cond: Condition, setup: Setup, config: TaxisStudyConfig) -> list[TrialSpec]:
    """One `TrialSpec` per one-fly trial of ``cond`` (the video: the connectome's first trial);
    ``degree-null-i`` is the trials' model ``null-{seed + i}``."""
    cfg = setup.cfg
    n = cfg.trials
    if cond.policy in ("constant", "random") and config.baseline_trials:
        n = min(n, config.baseline_trials)
    model = cond.name.replace("degree-null-", "null-")
    if model.startswith("null-"):
        model = f"null-{cfg.seed + int(model.split('-')[1])}"
    video = str(config.video) if config.video else None
    return [
        TrialSpec(
            i,
            cond.policy,
            model,
            cfg,
            setup.ctrl_cfg,
            cond.mapping,
            config.body,
            config.timestep,
            video if (i == 0 and cond.name == "connectome") else None,
            config.connectome,
        )
        for i in range(n)
    ]


def test_all(
    conds: list[Condition],
    setup: Setup,
    config: TaxisStudyConfig,
    store: Path | None = None,
    show: bool = True,
) -> list[tuple[Trace, dict[str, Any]]]:
    """Every condition tested: one batched job per condition (a body with ``supports_batch``),
    else one job per one-fly trial of every condition at once (saved to ``store``)."""
    options = config.executor()
    label = f"taxis ({config.body}): testing"
    if body_class(config.body).supports_batch:
        jobs = [Job(c.name, test_job, (c,)) for c in conds]
        return map_jobs(jobs, options, shared=setup, label=label, show=show)
    specs = {c.name: trial_specs(c, setup, config) for c in conds}
    merged = run_conditions(specs, options, store=store, label=label, show=show)
    return [merged[c.name] for c in conds]


def run_study(
    con: Connectome,
    config: TaxisStudyConfig,
    store: Path | None = None,
    show: bool = True,
) -> tuple[list[dict[str, Any]], dict[str, Trace]]:
    """Baselines, teacher, the connectome and its nulls: train (kinematic) then test, every
    training and every test a job of `wirelab.parallel` (``config.workers``, ``backend``).

    Returns tidy rows (one per condition, in the order of the module docstring) and the test
    traces by condition. ``store``: a folder where one-fly trials are saved as they end and
    reused (`wirelab.fly.taxis.trials`).
    """
    cfg = config.taxis
    body_class(config.body)  # an unknown body fails before any work
    setup = Setup(con, config.controller, cfg, config.body)
    models = reservoir_models(con, cfg.seed, config.nulls, config.mirror)
    jobs = [Job(f"train {name}", train_job, (w,)) for name, w in models]
    trained = map_jobs(
        jobs, config.executor(), shared=setup, label="taxis: training readouts", show=show
    )
    conds = conditions(models, trained, BASELINES)
    rows: list[dict[str, Any]] = []
    traces: dict[str, Trace] = {}
    for cond, (tr, res) in zip(conds, test_all(conds, setup, config, store, show), strict=True):
        traces[cond.name] = tr
        row = {"condition": cond.name, "body": config.body, **res}
        row["success_ci"] = wilson(row["successes"], row["trials"])
        row.update(cond.train)
        rows.append(row)
    return rows, traces


@in_fly_env
def run(
    config: TaxisStudyConfig,
    out: Path,
    *,
    overwrite: bool = False,
    resume: bool = False,
    con: Connectome | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """`run_study` into the result directory ``out``: ``metrics.json`` (the connectome's success
    rate, path efficiency and time to source, every condition under ``conditions``), the success
    bars and the trajectories. One-fly (flygym) trials are kept in ``out/trials/`` as they end;
    ``resume=True`` continues a killed study from them (the settings must equal the saved
    ``config.json``'s, except ``workers``, ``backend``, ``address``)."""
    from wirelab.fly.plots import taxis_bars, taxis_paths

    config.validate()
    if con is None:
        con = load_connectome(config.connectome)
    cfg, ctrl = config.taxis, config.controller
    run_config = {
        "taxis": cfg.to_dict(),
        "controller": ctrl.to_dict(),
        "body": config.body,
        "nulls": config.nulls,
        "mirror": config.mirror,
        "video": str(config.video) if config.video else None,
        "connectome": config.connectome,
        "timestep": config.timestep,
        "workers": config.workers,
        "baseline_trials": config.baseline_trials,
        "backend": config.backend,
        "address": config.address,
    }
    with resumable_experiment(
        out, "wirelab fly taxis", run_config, TRIALS, overwrite=overwrite, resume=resume
    ) as (rd, store):
        t0 = time.perf_counter()
        rows, traces = run_study(con, config, store, show=progress)
        main = next(r for r in rows if r["condition"] == "connectome")
        rd.save_figure(taxis_bars(rows), "success_rate")
        rd.save_figure(taxis_paths(traces, cfg.radius), "trajectories")
        return rd.finish(
            {
                "success_rate": main["success_rate"],
                "path_efficiency": main["path_efficiency"],
                "time_to_source_s": main["time_to_source_s"],
                "conditions": rows,
                "wall_s": time.perf_counter() - t0,
            }
        )
