"""The taxis study: baselines, teacher, the connectome and its nulls, trained then tested.

Training always runs on the kinematic body (`wirelab.fly.taxis.train_readout`): a readout trained
on the kinematic body is deployed on either body. Testing runs on the chosen body: a body with
``supports_batch`` (kinematic) tests all ``trials`` flies as one batch; any other body (flygym)
runs one fly per process from the same random starts (`wirelab.fly.taxis_trials`, at most two
processes, a trial stops at the source), ``baseline_trials`` of them for the constant and random
baselines (which rarely reach the source and so cost the whole time limit). Conditions: teacher,
constant, random, the connectome, ``input-only`` (antenna inputs straight to the drive), the
mirrored connectome and the degree-preserving nulls. `run` writes the result directory; see
`wirelab.fly.taxis` for the task.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectome import Connectome
from wirelab.data.connectomes import load_connectome
from wirelab.errors import UsageError
from wirelab.fly.bodies import body_class, renderers
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.loop import Trace
from wirelab.fly.mapping import LinearMapping
from wirelab.fly.taxis import TaxisConfig, deploy, kinematic_body, train_readout, wilson
from wirelab.fly.taxis_store import TRIALS
from wirelab.fly.taxis_trials import TrialSpec, run_trials
from wirelab.fly.turns_store import resumable_experiment
from wirelab.progress import progress_bar

BASELINES = ("teacher", "constant", "random")


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

    Returns tidy rows (one per condition) and the test traces by condition. ``store``: a folder
    where one-fly trials are saved as they end and reused (`wirelab.fly.taxis_trials`).
    """
    from wirelab.reservoir.nulls import degree_preserving, mirrored

    cls = body_class(body)
    models: list[tuple[str, sp.spmatrix | None]] = [("connectome", None)]
    if mirror:
        models.append(("mirror", mirrored(con)))
    models += [(f"degree-null-{i}", degree_preserving(con, cfg.seed + i)) for i in range(n_nulls)]
    total = len(BASELINES) + 2 * len(models) + 1
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done / total)

    rows: list[dict[str, Any]] = []
    traces: dict[str, Trace] = {}

    def test(name: str, policy: str, mapping: LinearMapping | None, w: Any) -> dict[str, Any]:
        if cls.supports_batch:
            b = kinematic_body(cfg, cfg.trials, seed=cfg.seed, cls=cls)
            tr, res = deploy(cfg, policy, con, ctrl_cfg, mapping, weights=w, body=b)
        else:
            n = cfg.trials
            if policy in ("constant", "random") and baseline_trials:
                n = min(n, baseline_trials)
            model = name.replace("degree-null-", "null-")
            if model.startswith("null-"):
                model = f"null-{cfg.seed + int(model.split('-')[1])}"
            specs = [
                TrialSpec(
                    i,
                    policy,
                    model,
                    cfg,
                    ctrl_cfg,
                    mapping,
                    body,
                    timestep,
                    str(video) if (video and i == 0 and name == "connectome") else None,
                    connectome,
                )
                for i in range(n)
            ]
            tr, res = run_trials(specs, workers, store=store, condition=name)
        traces[name] = tr
        res = {"condition": name, "body": body, **res}
        res["success_ci"] = wilson(res["successes"], res["trials"])
        return res

    for name in BASELINES:
        rows.append(test(name, name, None, None))
        tick()
    for name, w in models:
        mapping, info = train_readout(con, ctrl_cfg, cfg, weights=w)
        tick()
        row = test(name, "reservoir", mapping, w)
        row.update({"train_r2": info["train_r2"], "ridge": info["ridge"]})
        rows.append(row)
        tick()
        if name == "connectome":
            row = test("input-only", "input-only", info["input_only"], None)
            row.update({"train_r2": info["input_only_r2"], "ridge": info["input_only_ridge"]})
            rows.append(row)
            tick()
    return rows, traces


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
