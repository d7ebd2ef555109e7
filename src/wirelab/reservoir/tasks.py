"""The benchmark tasks (`TASKS`), batched over M networks x G gains; each states its metric.

Every task takes a `Setup` (normalised matrices ``[pre, post]``, gains, input and readout
populations, units, seed) and returns a `TaskResult` with ``scores`` of shape ``(M, G)``. Inputs,
input weights and train/test splits depend only on the seed, so the connectome and its nulls see
identical data (paired comparisons). Readouts see only the recorded ``outputs`` population.

- ``memory-capacity``, ``narma10``, ``lorenz``: `task_series` (definitions there);
- ``mackey-glass``: `task_mackey` (one step, and 84-step free running with its lambda chosen on
  validation segments of the training part);
- ``decision``: `task_decision`.

Readouts: ridge, lambda by 3-fold CV on `task_base.GRID` (relative, 1e-12 .. 1e4 in half
decades; the Mackey-Glass free run chooses on `task_mackey.FREE_GRID`), a warning in
``detail["warnings"]`` when a chosen lambda is on the grid's edge. NRMSE =
sqrt(mean((y_hat - y)^2)) / std(y).

Whole studies: `run_tasks` runs several tasks on the same networks and gains together: the
tasks are plans that yield blocks of input sequences (`task_base`), and every round's blocks of
every task become the columns of ONE sparse-times-dense product per step
(`engine.run_blocks`). Each column's arithmetic does not depend on the others, so a task's
result is bit for bit the same run alone (`run_task`) or in a study.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from wirelab.registry import Registry
from wirelab.reservoir.engine import BlockRun, run_blocks
from wirelab.reservoir.task_base import (
    TRAIN,
    Plan,
    Setup,
    TaskResult,
    input_weights,
    nrmse,
)
from wirelab.reservoir.task_decision import decision_plan
from wirelab.reservoir.task_mackey import mackey_glass_plan
from wirelab.reservoir.task_series import lorenz_plan, memory_capacity_plan, narma_plan

__all__ = [
    "TASKS",
    "TRAIN",
    "Setup",
    "TaskResult",
    "decision",
    "input_weights",
    "lorenz",
    "mackey_glass_task",
    "memory_capacity",
    "narma",
    "nrmse",
    "run_plans",
    "run_task",
    "run_tasks",
]

Runner = Callable[..., list[BlockRun]]  # `engine.run_blocks`'s signature

TASKS = Registry[Callable[..., Any]]("task")
TASKS.add("memory-capacity", memory_capacity_plan, "sum of squared delay-k recall correlations")
TASKS.add("narma10", narma_plan, "NARMA-10 one-step prediction, NRMSE")
TASKS.add("mackey-glass", mackey_glass_plan, "Mackey-Glass one-step and free-running, NRMSE")
TASKS.add("decision", decision_plan, "left vs right evidence accumulation, accuracy")
TASKS.add("lorenz", lorenz_plan, "Lorenz-63 one-step prediction of x, y, z, NRMSE")


def run_tasks(
    names: Sequence[str],
    setup: Setup,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    runner: Runner = run_blocks,
) -> dict[str, TaskResult]:
    """Run the registered tasks ``names`` on ``setup`` together (``params``: sizes per task).

    A task registered as a plain function (returning a `TaskResult`) runs on its own; plans
    (generators) run together, one product per step for all their blocks of a round.
    ``runner`` replaces `engine.run_blocks` (a benchmark runs the same plans on another engine).
    """
    params = params or {}
    done: dict[str, TaskResult] = {}
    plans: dict[str, Plan] = {}
    for name in dict.fromkeys(names):
        out = TASKS.get(name)(setup, **params.get(name, {}))
        if inspect.isgenerator(out):
            plans[name] = cast(Plan, out)
        else:
            done[name] = out
    done.update(run_plans(plans, setup, runner=runner))
    return {name: done[name] for name in dict.fromkeys(names)}


def run_plans(
    plans: Mapping[str, Plan], setup: Setup, *, runner: Runner = run_blocks
) -> dict[str, TaskResult]:
    """Drive task plans together: each round's blocks of all of them in one `run_blocks`."""
    done: dict[str, TaskResult] = {}
    asks: dict[str, list[Any]] = {}

    def advance(name: str, runs: list[BlockRun] | None) -> None:
        try:
            asks[name] = plans[name].send(runs) if runs is not None else next(plans[name])
        except StopIteration as stop:
            done[name] = stop.value
            asks.pop(name, None)

    for name in plans:
        advance(name, None)
    while asks:
        order = list(asks)
        blocks = [blk for name in order for blk in asks[name]]
        runs = runner(
            setup.weights,
            setup.alphas,
            setup.units,
            blocks,
            product=setup.backend,
            dtype=setup.dtype,
            settings=setup.settings,
        )
        at = 0
        for name in order:
            k = len(asks[name])
            advance(name, runs[at : at + k])
            at += k
    return done


def run_task(name: str, setup: Setup, **params: Any) -> TaskResult:
    """Run the task registered as ``name`` on ``setup`` alone (``params``: its keyword sizes)."""
    return run_tasks([name], setup, {name: params})[name]


def memory_capacity(setup: Setup, **sizes: Any) -> TaskResult:
    """Memory capacity alone (`task_series.memory_capacity_plan`: sizes and definition)."""
    return run_plans({"t": memory_capacity_plan(setup, **sizes)}, setup)["t"]


def narma(setup: Setup, **sizes: Any) -> TaskResult:
    """NARMA-10 alone (`task_series.narma_plan`)."""
    return run_plans({"t": narma_plan(setup, **sizes)}, setup)["t"]


def lorenz(setup: Setup, **sizes: Any) -> TaskResult:
    """Lorenz-63 alone (`task_series.lorenz_plan`)."""
    return run_plans({"t": lorenz_plan(setup, **sizes)}, setup)["t"]


def mackey_glass_task(setup: Setup, **sizes: Any) -> TaskResult:
    """Mackey-Glass alone (`task_mackey.mackey_glass_plan`)."""
    return run_plans({"t": mackey_glass_plan(setup, **sizes)}, setup)["t"]


def decision(setup: Setup, **sizes: Any) -> TaskResult:
    """The decision task alone (`task_decision.decision_plan`)."""
    return run_plans({"t": decision_plan(setup, **sizes)}, setup)["t"]
