"""The choice study's jobs (`wirelab.parallel`): one network trained and tested, one baseline.

`Setup` is what every job of a study shares (the connectome, the task and network settings), sent
once to each worker. `network_job` builds one network (the connectome, or a null of a `NULLS`
family by name and seed, `wirelab.reservoir.nulls`; ``swap`` for the input control), trains its
readout at every gain (`wirelab.fly.choice.episode.train`) and tests it on the test starts at
every gain, timing each part. `baseline_job` runs the ``teacher``, ``constant`` and ``merged``
conditions. Each job is seeded from the task's ``seed`` alone (training starts ``seed + 10000``,
test starts ``seed``), so results do not depend on where or in which order jobs run, and every
network sees the same starts, noise and fitting budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from wirelab.data.connectomes import Connectome
from wirelab.fly.choice.episode import test, train
from wirelab.fly.choice.network import ChoiceNetwork, NetworkConfig, lateral_gains
from wirelab.fly.choice.shortcuts import network_shortcuts
from wirelab.fly.choice.task import ChoiceConfig, starts, summarize

PLOTTED = 12  # test trials kept per condition for the trajectories plot


@dataclass(frozen=True)
class Setup:
    """What every job of one study shares."""

    con: Connectome
    task: ChoiceConfig
    network: NetworkConfig


def _kept(ep_position: np.ndarray, b: int, j: int) -> np.ndarray:
    """The first `PLOTTED` test flies of gain block ``j``: positions ``(S+1, <=12, 2)``."""
    return ep_position[:, j * b : j * b + min(b, PLOTTED)].astype(np.float32)


def network_job(setup: Setup, family: str | None, seed: int, swap: bool = False) -> dict[str, Any]:
    """Train and test one network at every gain: the connectome (``family`` None) or the null
    ``NULLS.get(family)(con, seed)``. Returns per gain the summary and the per-trial successes and
    contacts, the training figures, the open-loop lateral gains of both cues (`lateral_gains`),
    the kept trajectories, per gain the arena exits and the fitted mapping (the flygym test
    deploys them, `wirelab.fly.choice.flygym_study`) and the seconds spent."""
    from wirelab.reservoir.nulls import NULLS

    t0 = time.perf_counter()
    cfg, ncfg = setup.task, setup.network
    weights = None if family is None else NULLS.get(family)(setup.con, seed)
    g, interval = len(ncfg.gains), ncfg.update_interval
    train_starts = starts(cfg, cfg.train_trials, cfg.seed + 10_000)
    test_starts = starts(cfg, cfg.trials, cfg.seed)
    t1 = time.perf_counter()
    net = ChoiceNetwork(setup.con, ncfg, cfg.train_trials, weights=weights, swap=swap)
    mappings, infos = train(cfg, train_starts, g, net, interval)
    t2 = time.perf_counter()
    net = ChoiceNetwork(setup.con, ncfg, cfg.trials, weights=weights, swap=swap)
    ep, scores = test(cfg, test_starts, "readout", net, mappings, interval)
    t3 = time.perf_counter()
    lateral = lateral_gains(setup.con, ncfg, weights, swap)  # (G, 2)
    return {
        "lateral": {"attractive": lateral[:, 0].tolist(), "aversive": lateral[:, 1].tolist()},
        "by_gain": [
            {"gain": a, **summarize(s), **info, "success": s["success"], "contact": s["contact"]}
            for a, s, info in zip(ncfg.gains, scores, infos, strict=True)
        ],
        "paths": [_kept(ep.position, cfg.trials, j) for j in range(g)],
        "shortcuts": network_shortcuts(
            setup.con, weights, (ncfg.attractive_class, ncfg.aversive_class)
        ),
        "left_arena": [s["left_arena"] for s in scores],
        "mappings": mappings,
        "seconds": {"build": t1 - t0, "train": t2 - t1, "test": t3 - t2, "total": t3 - t0},
    }


def baseline_job(setup: Setup, policy: str) -> dict[str, Any]:
    """``teacher`` or ``constant`` (no training) or ``merged`` (the routing-free readout on the
    per-side sums of the cues, trained as a network's)."""
    t0 = time.perf_counter()
    cfg = setup.task
    interval = setup.network.update_interval
    test_starts = starts(cfg, cfg.trials, cfg.seed)
    extra: dict[str, Any] = {}
    mappings: list[Any] = []
    if policy == "merged":
        mappings, infos = train(
            cfg, starts(cfg, cfg.train_trials, cfg.seed + 10_000), 1, None, interval
        )
        extra = infos[0]
    ep, scores = test(cfg, test_starts, policy, None, mappings, interval)
    s = scores[0]
    return {
        "by_gain": [
            {
                "gain": None,
                **summarize(s),
                **extra,
                "success": s["success"],
                "contact": s["contact"],
            }
        ],
        "paths": [_kept(ep.position, cfg.trials, 0)],
        "left_arena": [s["left_arena"]],
        "mappings": mappings,
        "seconds": {"total": time.perf_counter() - t0},
    }
