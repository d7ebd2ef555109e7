"""The taxis study: baselines, teacher, the connectome and its nulls, trained then tested.

Training always runs on the kinematic body (`wirelab.fly.taxis.task.train_readout`): a readout
trained on the kinematic body is deployed on either body. Testing runs on the chosen body
(`ConditionTester`): a body with ``supports_batch`` (kinematic) tests all ``trials`` flies as one
batch; any other body (flygym) runs one fly per process from the same random starts
(`wirelab.fly.taxis.trials`, at most two processes, a trial stops at the source or when the fly
leaves the arena), ``baseline_trials`` of them for the constant and random baselines (which
rarely reach the source). Conditions, in order (`run_study`): teacher, constant,
random (`BASELINES`), then per reservoir model (`reservoir_models`: the connectome, the mirrored
connectome, the degree-preserving nulls) its trained readout, and right after the connectome
``input-only`` (antenna inputs straight to the drive, `train_and_test`). `run` writes the result
directory; see `wirelab.fly.taxis.task` for the task.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.fly.bodies import body_class, renderers
from wirelab.fly.bodies.base import Body
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.envs import in_fly_env
from wirelab.fly.loop import Trace
from wirelab.fly.mapping import LinearMapping
from wirelab.fly.store import resumable_experiment
from wirelab.fly.taxis.task import TaxisConfig, deploy, kinematic_body, train_readout, wilson
from wirelab.fly.taxis.trials import TRIALS, TrialSpec, run_trials
from wirelab.progress import progress_bar

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


@dataclass
class ConditionTester:
    """Tests one condition at a time on the study's test body (module docstring); keeps the test
    trace of each condition in ``traces``. ``store``: a folder where one-fly trials are saved as
    they end and reused (`wirelab.fly.taxis.trials`)."""

    con: Connectome
    ctrl_cfg: ControllerConfig
    cfg: TaxisConfig
    body: str = "kinematic"
    video: Any = None
    timestep: float = 1e-4
    workers: int = 2
    baseline_trials: int | None = None
    connectome: str = "larva"
    store: Path | None = None
    traces: dict[str, Trace] = field(default_factory=dict)
    body_type: type[Body] = field(init=False)

    def __post_init__(self) -> None:
        self.body_type = body_class(self.body)  # an unknown body fails before any work

    def trial_specs(self, name: str, policy: str, mapping: LinearMapping | None) -> list[TrialSpec]:
        """One `TrialSpec` per one-fly trial of condition ``name`` (the video: the connectome's
        first trial); ``degree-null-i`` is the trials' model ``null-{seed + i}``."""
        cfg = self.cfg
        n = cfg.trials
        if policy in ("constant", "random") and self.baseline_trials:
            n = min(n, self.baseline_trials)
        model = name.replace("degree-null-", "null-")
        if model.startswith("null-"):
            model = f"null-{cfg.seed + int(model.split('-')[1])}"
        return [
            TrialSpec(
                i,
                policy,
                model,
                cfg,
                self.ctrl_cfg,
                mapping,
                self.body,
                self.timestep,
                str(self.video) if (self.video and i == 0 and name == "connectome") else None,
                self.connectome,
            )
            for i in range(n)
        ]

    def __call__(
        self, name: str, policy: str, mapping: LinearMapping | None, weights: Any
    ) -> dict[str, Any]:
        """Test condition ``name`` (``policy`` of `wirelab.fly.taxis.task.deploy`); its row."""
        cls = self.body_type
        if cls.supports_batch:
            cfg = self.cfg
            b = kinematic_body(cfg, cfg.trials, seed=cfg.seed, cls=cls)
            tr, res = deploy(cfg, policy, self.con, self.ctrl_cfg, mapping, weights=weights, body=b)
        else:
            specs = self.trial_specs(name, policy, mapping)
            tr, res = run_trials(specs, self.workers, store=self.store, condition=name)
        self.traces[name] = tr
        res = {"condition": name, "body": self.body, **res}
        res["success_ci"] = wilson(res["successes"], res["trials"])
        return res


def train_and_test(
    test: ConditionTester, name: str, weights: sp.spmatrix | None, tick: Callable[[], None]
) -> list[dict[str, Any]]:
    """Train the readout of reservoir ``name`` (kinematic), test it; after the connectome also
    test its ``input-only`` readout. The rows, with the training's R^2 and ridge."""
    mapping, info = train_readout(test.con, test.ctrl_cfg, test.cfg, weights=weights)
    tick()
    row = test(name, "reservoir", mapping, weights)
    row.update({"train_r2": info["train_r2"], "ridge": info["ridge"]})
    rows = [row]
    tick()
    if name == "connectome":
        row = test("input-only", "input-only", info["input_only"], None)
        row.update({"train_r2": info["input_only_r2"], "ridge": info["input_only_ridge"]})
        rows.append(row)
        tick()
    return rows


def run_study(
    con: Connectome,
    ctrl_cfg: ControllerConfig,
    cfg: TaxisConfig,
    n_nulls: int = 3,
    mirror: bool = True,
    body: str = "kinematic",
    video: Any = None,
    progress: Callable[[float], None] | None = None,
    timestep: float = 1e-4,
    workers: int = 2,
    baseline_trials: int | None = None,
    connectome: str = "larva",
    store: Path | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Trace]]:
    """Baselines, teacher, the connectome and its nulls: train (kinematic) then test.

    Returns tidy rows (one per condition, in the order of the module docstring) and the test
    traces by condition. ``store``: see `ConditionTester`.
    """
    test = ConditionTester(
        con, ctrl_cfg, cfg, body, video, timestep, workers, baseline_trials, connectome, store
    )
    models = reservoir_models(con, cfg.seed, n_nulls, mirror)
    total = len(BASELINES) + 2 * len(models) + 1
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done / total)

    rows: list[dict[str, Any]] = []
    for name in BASELINES:
        rows.append(test(name, name, None, None))
        tick()
    for name, w in models:
        rows += train_and_test(test, name, w, tick)
    return rows, test.traces


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
    workers: int = 2
    baseline_trials: int | None = None

    def validate(self) -> None:
        if self.nulls < 0:
            raise UsageError("--nulls must be >= 0")
        if not (np.isfinite(self.taxis.time_limit) and np.isfinite(self.timestep)):
            raise UsageError("time limit and timestep must be finite")
        if not 1 <= self.workers <= 2:
            raise UsageError("--workers must be 1 or 2")
        if self.video and not body_class(self.body).renders_video:
            raise UsageError(
                f"--video needs a body that renders: --body {' or '.join(renderers())}"
            )


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
    ``config.json``'s, except ``workers``)."""
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
    }
    with resumable_experiment(
        out, "wirelab fly taxis", run_config, TRIALS, overwrite=overwrite, resume=resume
    ) as (rd, store):
        t0 = time.perf_counter()
        with progress_bar(f"taxis ({config.body})", show=progress) as bar:
            rows, traces = run_study(
                con,
                ctrl,
                cfg,
                n_nulls=config.nulls,
                mirror=config.mirror,
                body=config.body,
                video=config.video,
                progress=bar,
                timestep=config.timestep,
                workers=config.workers,
                baseline_trials=config.baseline_trials,
                connectome=config.connectome,
                store=store,
            )
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
