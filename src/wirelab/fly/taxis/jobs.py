"""The taxis study's jobs (`wirelab.parallel`): train one reservoir's readout, test one condition.

A `Condition` is one row of the study: its name, the `deploy` policy, the trained mapping (None
for the baselines), the reservoir weights (None: the connectome's own) and the training's figures
for its row. `Setup` is what every job of a study shares (the connectome, the controller and task
settings, the test body), sent once to each worker. `train_job` trains a readout on the kinematic
body (`wirelab.fly.taxis.task.train_readout`); `test_job` tests one condition with all its flies
in one batch (a body with ``supports_batch``); one-fly bodies (flygym) run one job per trial
instead (`wirelab.fly.taxis.trials`). Every job is seeded from the task's ``seed`` alone, so the
results do not depend on where or in which order the jobs run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.fly.bodies import body_class
from wirelab.fly.controller import ControllerConfig
from wirelab.fly.loop import Trace
from wirelab.fly.mapping import LinearMapping
from wirelab.fly.taxis.task import TaxisConfig, deploy, kinematic_body, train_readout


@dataclass(frozen=True)
class Setup:
    """What every job of one study shares."""

    con: Connectome
    ctrl_cfg: ControllerConfig
    cfg: TaxisConfig
    body: str = "kinematic"


@dataclass(frozen=True)
class Condition:
    """One condition to test (module docstring); ``train``: its row's training figures."""

    name: str
    policy: str
    mapping: LinearMapping | None = None
    weights: sp.spmatrix | None = None
    train: dict[str, Any] = field(default_factory=dict)


def train_job(setup: Setup, weights: sp.spmatrix | None) -> tuple[LinearMapping, dict[str, Any]]:
    """The readout of the reservoir with ``weights`` trained on the kinematic body."""
    return train_readout(setup.con, setup.ctrl_cfg, setup.cfg, weights=weights)


def test_job(setup: Setup, cond: Condition) -> tuple[Trace, dict[str, Any]]:
    """All ``cfg.trials`` flies of ``cond`` in one batch on the study's (batched) test body."""
    cfg = setup.cfg
    b = kinematic_body(cfg, cfg.trials, seed=cfg.seed, cls=body_class(setup.body))
    return deploy(
        cfg, cond.policy, setup.con, setup.ctrl_cfg, cond.mapping, weights=cond.weights, body=b
    )


def conditions(
    models: list[tuple[str, sp.spmatrix | None]],
    trained: list[tuple[LinearMapping, dict[str, Any]]],
    baselines: tuple[str, ...],
) -> list[Condition]:
    """The study's conditions in row order: the baselines, then each reservoir with its trained
    readout, and right after the connectome its ``input-only`` readout."""
    out = [Condition(name, name) for name in baselines]
    for (name, weights), (mapping, info) in zip(models, trained, strict=True):
        train = {"train_r2": info["train_r2"], "ridge": info["ridge"]}
        out.append(Condition(name, "reservoir", mapping, weights, train))
        if name == "connectome":
            train = {"train_r2": info["input_only_r2"], "ridge": info["input_only_ridge"]}
            out.append(Condition("input-only", "input-only", info["input_only"], None, train))
    return out
