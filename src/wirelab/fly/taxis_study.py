"""The taxis study: baselines, teacher, the connectome and its nulls, trained then tested.

Training always runs on the kinematic body (`wirelab.fly.taxis.train_readout`). Testing runs on
the chosen body: a body with ``supports_batch`` (kinematic) tests all ``trials`` flies as one
batch; any other body (flygym) runs them one after the other from the same random starts, and
only the connectome and the baselines are tested on it (nulls and mirror are trained, not
tested). `run` writes the result directory; see `wirelab.fly.taxis` for the task.
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
from wirelab.fly.body import Body
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.loop import Trace
from wirelab.fly.mapping import LinearMapping
from wirelab.fly.taxis import (
    TaxisConfig,
    deploy,
    kinematic_body,
    source,
    starts,
    train_readout,
    wilson,
)
from wirelab.progress import progress_bar
from wirelab.results import experiment

BASELINES = ("teacher", "constant", "random")


def sequential_trials(
    cfg: TaxisConfig,
    policy: str,
    con: Connectome,
    ctrl_cfg: ControllerConfig,
    mapping: LinearMapping | None,
    video: Any,
    cls: type[Body],
) -> tuple[Trace, dict[str, Any]]:
    """Test trials one fly at a time (same random starts as the batch); the first is filmed."""
    xy, heading = starts(cfg, cfg.trials, cfg.seed)
    results, traces = [], []
    for i in range(cfg.trials):
        kwargs: dict[str, Any] = {}
        if cls.renders_video:
            kwargs["video"] = video if (video and i == 0) else None
        body = cls(
            start_xy=(float(xy[i, 0]), float(xy[i, 1])),  # type: ignore[call-arg]
            start_heading=float(heading[i]),
            odor=source(cfg),
            seed=cfg.seed + i,
            **kwargs,
        )
        tr, res = deploy(cfg, policy, con, ctrl_cfg, mapping, body=body)
        traces.append(tr)
        results.append(res)
    succ = [r["success"][0] for r in results]
    n = len(traces[0].time)
    merged = Trace(
        time=traces[0].time,
        position=np.concatenate([t.position[:n] for t in traces], axis=1),
        heading=np.concatenate([t.heading[:n] for t in traces], axis=1),
        inputs=np.concatenate([t.inputs for t in traces], axis=1),
        signal=np.concatenate([t.signal for t in traces], axis=1),
        dn=np.concatenate([t.dn for t in traces], axis=1),
        extra={"final_position": np.concatenate([t.extra["final_position"] for t in traces])},
    )
    eff = [r["path_efficiency"] for r in results if r["path_efficiency"] is not None]
    tts = [r["time_to_source_s"] for r in results if r["time_to_source_s"] is not None]
    return merged, {
        "trials": cfg.trials,
        "successes": int(sum(succ)),
        "success_rate": float(np.mean(succ)),
        "path_efficiency": float(np.mean(eff)) if eff else None,
        "time_to_source_s": float(np.mean(tts)) if tts else None,
        "final_distance_mm": float(np.mean([r["final_distance_mm"] for r in results])),
        "success": succ,
    }


def run_study(
    con: Connectome,
    ctrl_cfg: ControllerConfig,
    cfg: TaxisConfig,
    n_nulls: int = 3,
    mirror: bool = True,
    body: str = "kinematic",
    video: Any = None,
    progress: Callable[[float], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Trace]]:
    """Baselines, teacher, the connectome and its nulls: train (kinematic) then test.

    Returns tidy rows (one per condition) and the test traces by condition.
    """
    from wirelab.reservoir.nulls import degree_preserving, mirrored

    cls = body_class(body)
    models: list[tuple[str, sp.spmatrix | None]] = [("connectome", None)]
    if mirror:
        models.append(("mirror", mirrored(con)))
    models += [(f"degree-null-{i}", degree_preserving(con, cfg.seed + i)) for i in range(n_nulls)]
    total = len(BASELINES) + 2 * len(models)
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
            if w is not None:
                raise UsageError(f"{body} taxis tests the connectome and the baselines only")
            tr, res = sequential_trials(cfg, policy, con, ctrl_cfg, mapping, video, cls)
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
        if not cls.supports_batch and w is not None:
            tick()
            continue
        row = test(name, "reservoir", mapping, w)
        row.update({"train_r2": info["train_r2"], "ridge": info["ridge"]})
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

    def validate(self) -> None:
        if self.nulls < 0:
            raise UsageError("--nulls must be >= 0")
        if self.video and not body_class(self.body).renders_video:
            raise UsageError(
                f"--video needs a body that renders: --body {' or '.join(renderers())}"
            )


def run(
    config: TaxisStudyConfig,
    out: Path,
    *,
    overwrite: bool = False,
    con: Connectome | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """`run_study` into the result directory ``out``: ``metrics.json`` (the connectome's success
    rate, path efficiency and time to source, every condition under ``conditions``), the success
    bars and the trajectories."""
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
        "video": config.video,
        "connectome": config.connectome,
    }
    with experiment(out, command="wirelab fly taxis", config=run_config, overwrite=overwrite) as rd:
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
