"""The choice study's test trials on NeuroMechFly (``--body flygym``), after the kinematic study.

Training stays on the kinematic body: `wirelab.fly.choice.study.run_study` trains and tests every
network exactly as a kinematic run does, and keeps each network's fitted mapping per gain. Then
every condition's test starts run again on flygym 2, one fly per job (`wirelab.fly.choice.
flygym_trials.trial`, the trials of every condition at once, `wirelab.parallel`), at the
connectome's gain ``gain`` only (one gain: a flygym trial costs about a thousand kinematic ones):

- ``connectome``, ``input-control``, ``null-<seed>``: their kinematic mapping at ``gain``;
- ``teacher``, ``constant``: as on the kinematic body; ``merged``: its kinematic mapping.

`collect` puts the trials back into `run_study`'s layout (one entry in ``by_gain``), so the same
`wirelab.fly.choice.study.compare` scores them (its ``own_best_gain`` is then ``same_gain``);
`compare_bodies` gives, per condition, each start's kinematic outcome beside its flygym one
(`wirelab.fly.choice.stats.per_start`).

Call (in the fly environment)::

    results = run_study(con, config)                      # kinematic, with mappings
    fly = collect(run_flygym(con, config, results), config, results)
    per = compare_bodies(results, fly, config)            # {condition: per_start(...)}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from wirelab.data.connectomes import Connectome
from wirelab.fly.choice.flygym_trials import FlyTrial, trial
from wirelab.fly.choice.jobs import PLOTTED, Setup
from wirelab.fly.choice.network import NetworkConfig
from wirelab.fly.choice.stats import per_start
from wirelab.fly.choice.task import ChoiceConfig, summarize
from wirelab.parallel import Job, map_jobs


class Settings(Protocol):
    """What this module reads of a `wirelab.fly.choice.study.ChoiceStudyConfig` (read-only)."""

    @property
    def task(self) -> ChoiceConfig: ...

    @property
    def network(self) -> NetworkConfig: ...

    @property
    def gain(self) -> float: ...

    @property
    def null_family(self) -> str: ...

    @property
    def timestep(self) -> float: ...

    @property
    def video(self) -> Path | None: ...

    @property
    def workers(self) -> int | None: ...

    @property
    def backend(self) -> str: ...

    @property
    def address(self) -> str | None: ...


NETWORKS = {"connectome": False, "input-control": True}  # name -> swap (the input control)


def specs(config: Settings, results: dict[str, Any]) -> dict[str, list[FlyTrial]]:
    """Per condition of ``results`` (kinematic, `run_study`) its flygym test trials: the
    ``trials`` test starts, each network's kinematic mapping at ``config.gain``; the video (when
    ``config.video``) on the connectome's first trial."""
    j = config.network.gains.index(config.gain)
    out: dict[str, list[FlyTrial]] = {}
    for name, r in results.items():
        if name in NETWORKS or name.startswith("null-"):
            null = name.startswith("null-")
            base = FlyTrial(
                name,
                0,
                "readout",
                family=config.null_family if null else None,
                seed=int(name.split("-")[1]) if null else 0,
                swap=NETWORKS.get(name, False),
                gain=config.gain,
                mapping=r["mappings"][j],
                timestep=config.timestep,
            )
        else:  # a baseline: teacher, constant, merged (its one mapping)
            maps = r["mappings"]
            mapping = maps[0] if maps else None
            base = FlyTrial(name, 0, name, mapping=mapping, timestep=config.timestep)
        video = str(config.video) if config.video else None
        out[name] = [
            replace(base, index=i, video=video if (i == 0 and name == "connectome") else None)
            for i in range(config.task.trials)
        ]
    return out


def run_flygym(
    con: Connectome, config: Settings, results: dict[str, Any], show: bool = True
) -> dict[str, list[dict[str, Any]]]:
    """Every flygym trial of `specs` as one job (``config``'s workers, checked against memory
    by `wirelab.fly.bodies.executor`); returns per condition the trials' results in start order."""
    from wirelab.fly.bodies import executor

    setup = Setup(con, config.task, config.network)
    todo = specs(config, results)
    jobs = [Job(f"{c} trial {s.index}", trial, (s,)) for c, ss in todo.items() for s in ss]
    options = executor("flygym", config.workers, config.backend, config.address)
    values = iter(
        map_jobs(jobs, options, shared=setup, label="choice (flygym): testing", show=show)
    )
    return {c: [next(values) for _ in ss] for c, ss in todo.items()}


def pad(paths: Sequence[np.ndarray]) -> np.ndarray:
    """One fly's positions ``(S_i+1, 2)`` each -> ``(S+1, n, 2)``, a shorter trial repeating its
    last row (the fly stays at its end)."""
    s = max(len(p) for p in paths)
    return np.stack([np.concatenate([p, np.repeat(p[-1:], s - len(p), axis=0)]) for p in paths], 1)


def collect(
    fly: dict[str, list[dict[str, Any]]], config: Settings, results: dict[str, Any]
) -> dict[str, Any]:
    """The flygym trials per condition in `run_study`'s layout: ``by_gain`` (one entry: the
    summary and the per-trial successes and contacts), ``left_arena``, ``paths`` (the first
    `PLOTTED` flies), the network's kinematic ``lateral`` gains and the seconds spent."""
    out: dict[str, Any] = {}
    for name, trials in fly.items():
        scores = {k: [t["scores"][k][0] for t in trials] for k in trials[0]["scores"]}
        gain = results[name]["by_gain"][0]["gain"]
        walls = [t["wall_s"] for t in trials]
        out[name] = {
            "by_gain": [
                {
                    "gain": None if gain is None else config.gain,
                    **summarize(scores),
                    "success": scores["success"],
                    "contact": scores["contact"],
                }
            ],
            "left_arena": [scores["left_arena"]],
            "paths": [pad([t["position"] for t in trials[:PLOTTED]])],
            "seconds": {
                "total": float(np.sum(walls)),
                "trial_wall_s_mean": float(np.mean(walls)),
                "simulated_s_mean": float(np.mean([t["simulated_s"] for t in trials])),
            },
        }
        if "lateral" in results[name]:
            out[name]["lateral"] = results[name]["lateral"]
    return out


def compare_bodies(
    results: dict[str, Any], fly: dict[str, Any], config: Settings
) -> dict[str, dict[str, Any]]:
    """Per condition, each start's kinematic outcome (at ``config.gain`` for a network) beside
    its flygym one (`per_start`)."""
    j = config.network.gains.index(config.gain)
    out = {}
    for name, f in fly.items():
        r = results[name]
        k = j if r["by_gain"][0]["gain"] is not None else 0
        kin = {**r["by_gain"][k], "left_arena": r["left_arena"][k]}
        out[name] = per_start(kin, {**f["by_gain"][0], "left_arena": f["left_arena"][0]})
    return out
