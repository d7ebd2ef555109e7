"""The choice study: the connectome against N nulls of one family, with controls and baselines.

Conditions (`run_study`, every one a job of `wirelab.parallel`: ``--workers``, ``--backend``):

- ``connectome``: the larval connectome, its readout trained at every gain of ``network.gains``;
- ``input-control``: the same connectome with each cue fed into the other's sensory class;
- ``null-<seed>``: ``nulls`` networks of the family ``null_family`` (a `NULLS` name, e.g.
  ``degree`` or ``degree-boundary``), seeds ``null_seed + i``, each trained the same way;
- baselines: ``teacher`` (the upper bound), ``constant`` (``[1, 1]``: walks between the sources)
  and ``merged`` (the same small readout on the cues summed per side: what no routing gives).

The comparison (`compare`, arithmetic in `wirelab.fly.choice.stats`): the connectome's success
rate at its gain ``gain`` against every null's at the same gain, and the connectome's best rate
over the grid against every null's best over the grid (each network at its own best gain, chosen
on the test starts for every network alike): rank p, z, difference and Cohen's h. Per start,
paired comparisons of the connectome with each control and baseline. `run` writes the result
directory: ``config.json``, ``trajectories.png``, ``metrics.json`` last.

``body="flygym"``: the same kinematic study (training, fits and kinematic tests unchanged), then
every condition's test starts on NeuroMechFly at ``gain`` (`wirelab.fly.choice.flygym_study`);
``metrics.json`` then holds the flygym rows in the same layout, the kinematic metrics under
``kinematic`` and per condition each start's kinematic and flygym outcome under ``per_start``.
The whole run goes to the fly environment (`wirelab.fly.envs.in_fly_env`).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.fly.choice.jobs import Setup, baseline_job, network_job
from wirelab.fly.choice.network import NetworkConfig
from wirelab.fly.choice.shortcuts import summarize as summarize_shortcuts
from wirelab.fly.choice.stats import against_nulls, paired
from wirelab.fly.choice.task import ChoiceConfig
from wirelab.fly.envs import in_fly_env
from wirelab.fly.limits import check_count, check_magnitude, check_seconds, check_seeds
from wirelab.fly.populations import modalities
from wirelab.parallel import ExecOptions, Job, map_jobs
from wirelab.results import experiment

BASELINES = ("teacher", "constant", "merged")
CONTROLS = ("input-control", *BASELINES)
TEST_BODIES = ("kinematic", "flygym")  # training is always kinematic


@dataclass(frozen=True)
class ChoiceStudyConfig:
    """The study: task, network (with the gain grid), the connectome's ``gain``, the null family
    and how many, the controls, the connectome and where the jobs run."""

    task: ChoiceConfig = field(default_factory=ChoiceConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    gain: float = 1.0
    null_family: str = "degree"
    nulls: int = 5
    null_seed: int = 1000
    controls: bool = True
    connectome: str = "larva"
    workers: int | None = None
    backend: str = "local"
    address: str | None = None
    body: str = "kinematic"
    timestep: float = 1e-4
    video: Path | None = None

    def validate(self) -> None:
        from wirelab.reservoir.nulls import NULLS

        if self.gain not in self.network.gains:
            raise UsageError(f"--gain {self.gain:g} must be one of --gains {self.network.gains}")
        task = self.task
        check_count(self.nulls, "--nulls")
        check_count(task.trials, "--trials", low=1)
        check_count(task.train_trials, "--train-trials", low=2)
        check_magnitude(task.arena_radius, "--arena-radius")
        check_magnitude(task.input_gain, "--input-gain")
        for g in self.network.gains:
            check_magnitude(g, "--gains")
        # seeds: test starts seed, training starts seed + 10000, noise seed + 20000; nulls
        check_seeds(task.seed, 20_001)
        check_seeds(self.null_seed, max(1, self.nulls), "--null-seed")
        flies = len(self.network.gains) * 2 * max(task.trials, task.train_trials)
        check_seconds(
            task.time_limit,
            "--time-limit",
            "kinematic",
            interval=self.network.update_interval,
            flies=flies,
        )
        NULLS.get(self.null_family)
        self.executor().validate()
        if self.body not in TEST_BODIES:
            raise UsageError(f"--body must be one of {', '.join(TEST_BODIES)}, not {self.body!r}")
        if self.video is not None and self.body == "kinematic":
            raise UsageError("--video needs --body flygym (the kinematic body renders nothing)")
        if self.body != "kinematic":
            self._validate_body()

    def _validate_body(self) -> None:
        from wirelab.fly.bodies import executor

        if not (np.isfinite(self.timestep) and 0 < self.timestep <= 1e-3):
            raise UsageError(f"--timestep must be in (0, 1e-3] s, not {self.timestep}")
        check_seconds(self.task.time_limit, "--time-limit", self.body, timestep=self.timestep)
        executor(self.body, self.workers, self.backend, self.address)

    def executor(self) -> ExecOptions:
        return ExecOptions(self.backend, self.workers, self.address)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["video"] = str(self.video) if self.video else None
        return d


def run_study(con: Connectome, config: ChoiceStudyConfig, show: bool = True) -> dict[str, Any]:
    """Every condition's job at once; returns ``{condition: network_job's result}``."""
    setup = Setup(con, config.task, config.network)
    names: list[str] = ["connectome"]
    jobs = [Job("connectome", network_job, (None, 0))]
    if config.controls:
        jobs.append(Job("input-control", network_job, (None, 0, True)))
        jobs += [Job(b, baseline_job, (b,)) for b in BASELINES]
        names += list(CONTROLS)
    seeds = [config.null_seed + i for i in range(config.nulls)]
    jobs += [Job(f"null-{s}", network_job, (config.null_family, s)) for s in seeds]
    names += [f"null-{s}" for s in seeds]
    values = map_jobs(jobs, config.executor(), shared=setup, label="choice", show=show)
    return dict(zip(names, values, strict=True))


def _row(name: str, result: dict[str, Any], j: int) -> dict[str, Any]:
    """A condition's row at gain block ``j`` without the per-trial lists."""
    r = result["by_gain"][j]
    return {"condition": name, **{k: v for k, v in r.items() if k not in ("success", "contact")}}


def compare(results: dict[str, Any], config: ChoiceStudyConfig) -> dict[str, Any]:
    """Rows, the comparison against the nulls and the paired comparisons (module docstring)."""
    j = config.network.gains.index(config.gain)
    conn = results["connectome"]["by_gain"]
    nulls = {k: v["by_gain"] for k, v in results.items() if k.startswith("null-")}

    def best(by_gain: list[dict[str, Any]]) -> float:
        return max(r["success_rate"] for r in by_gain)

    rows = [_row(k, v, j if v["by_gain"][0]["gain"] is not None else 0) for k, v in results.items()]
    out: dict[str, Any] = {
        "conditions": rows,
        "by_gain": {
            k: [
                {
                    "gain": r["gain"],
                    "success_rate": r["success_rate"],
                    "contact_rate": r["contact_rate"],
                }
                for r in v["by_gain"]
            ]
            for k, v in results.items()
            if v["by_gain"][0]["gain"] is not None
        },
        "nulls": {
            "family": config.null_family,
            "seeds": [int(k.split("-")[1]) for k in nulls],
            "same_gain": against_nulls(
                conn[j]["success_rate"], [v[j]["success_rate"] for v in nulls.values()]
            ),
            "own_best_gain": against_nulls(best(conn), [best(v) for v in nulls.values()]),
            "contact_same_gain": {
                "observed": conn[j]["contact_rate"],
                "nulls": [v[j]["contact_rate"] for v in nulls.values()],
            },
        },
    }
    out["lateral"] = {k: v["lateral"] for k, v in results.items() if "lateral" in v}
    if "shortcuts" in results.get("connectome", {}):
        out["shortcuts"] = summarize_shortcuts(results)
    out["paired"] = {
        k: paired(
            conn[j]["success"], results[k]["by_gain"][j if k == "input-control" else 0]["success"]
        )
        for k in CONTROLS
        if k in results
    }
    return out


def _paths(results: dict[str, Any], j: int) -> dict[str, np.ndarray]:
    """The plotted conditions' kept paths: the connectome, its controls, the first null."""
    shown: list[str] = [k for k in ("connectome", "input-control", "merged") if k in results]
    shown += [k for k in results if k.startswith("null-")][:1]
    return {
        k: results[k]["paths"][j if results[k]["by_gain"][0]["gain"] is not None else 0]
        for k in shown
    }


def _seconds(results: dict[str, Any]) -> dict[str, Any]:
    nets = [k for k in results if k == "connectome" or k.startswith("null-")]
    net_s = [results[k]["seconds"]["total"] for k in nets]
    return {
        "per_network": {k: v["seconds"] for k, v in results.items()},
        "network_mean_s": float(np.mean(net_s)),
    }


def on_flygym(
    con: Connectome, config: ChoiceStudyConfig, results: dict[str, Any], show: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The kinematic ``results`` (`run_study`) tested again on flygym (module docstring):
    returns the flygym results (`run_study`'s layout, one gain) and their metrics, with the
    kinematic metrics under ``kinematic`` and the per-start outcomes under ``per_start``."""
    from dataclasses import replace

    from wirelab.fly.choice.flygym_study import collect, compare_bodies, run_flygym

    t0 = time.perf_counter()
    fly = collect(run_flygym(con, config, results, show), config, results)
    one_gain = replace(config, network=replace(config.network, gains=(config.gain,)))
    metrics = compare(fly, one_gain)
    metrics["body"] = config.body
    metrics["kinematic"] = compare(results, config)
    metrics["kinematic"]["seconds"] = _seconds(results)
    metrics["per_start"] = compare_bodies(results, fly, config)
    metrics["seconds"] = {**_seconds(fly), "flygym_wall_s": time.perf_counter() - t0}
    return fly, metrics


@in_fly_env
def run(
    config: ChoiceStudyConfig,
    out: Path,
    *,
    overwrite: bool = False,
    con: Connectome | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """`run_study` into the result directory ``out``: ``config.json``, ``trajectories.png``
    (the connectome, its controls and the first null, in the frame of each start: bisector to the
    right, attractive source up) and ``metrics.json`` (`compare`, plus seconds per network).
    ``body="flygym"`` (`on_flygym`): the flygym metrics, ``trajectories.png`` of the flygym
    trials and ``trajectories_kinematic.png``; the whole run in the fly environment."""
    from wirelab.fly.choice.plots import choice_paths

    config.validate()
    con = con if con is not None else load_connectome(config.connectome)
    known = modalities(con)
    for cls in (config.network.attractive_class, config.network.aversive_class):
        if cls not in known:
            raise UsageError(f"unknown sensory class {cls!r}; known: {', '.join(known)}")
    with experiment(
        out, command="wirelab fly choice", config=config.to_dict(), overwrite=overwrite
    ) as rd:
        t0 = time.perf_counter()
        results = run_study(con, config, show=progress)
        j = config.network.gains.index(config.gain)
        if config.body == "kinematic":
            metrics = compare(results, config)
            rd.save_figure(choice_paths(_paths(results, j), config.task), "trajectories")
            metrics["seconds"] = _seconds(results)
        else:
            rd.save_figure(choice_paths(_paths(results, j), config.task), "trajectories_kinematic")
            fly, metrics = on_flygym(con, config, results, show=progress)
            rd.save_figure(choice_paths(_paths(fly, 0), config.task), "trajectories")
        metrics["seconds"]["wall_s"] = time.perf_counter() - t0
        main = metrics["conditions"][0]
        return rd.finish(
            {"success_rate": main["success_rate"], "contact_rate": main["contact_rate"], **metrics}
        )
