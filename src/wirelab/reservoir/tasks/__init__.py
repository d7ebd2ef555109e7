"""The benchmark tasks (`TASKS`), batched over M networks x G gains; each states its metric.

Every task takes a `Setup` (normalised matrices ``[pre, post]``, gains, input and readout
populations, units, seed) and returns a `TaskResult` with ``scores`` of shape ``(M, G)``. Inputs,
input weights and train/test splits depend only on the seed, so the connectome and its nulls see
identical data (paired comparisons). Readouts see only the recorded ``outputs`` population.

One module per task, each defining ``TASK``, a `base.Task` entry (its plan, ``--quick`` sizes,
`base.Metric` s with their direction, log scale and the report's words, and what it requires):
``memory_capacity``, ``narma10``, ``mackey_glass`` (one step, and 84-step free running with its
lambda chosen on validation segments of the training part), ``decision``, ``lorenz``. Adding a
task is one module plus one line below; the experiment, its figure and the report read the
entries.

Readouts: ridge, lambda by 3-fold CV on `ridge.GRID` (relative, 1e-12 .. 1e4 in half decades;
the Mackey-Glass free run chooses on `mackey_glass.FREE_GRID`), a warning in
``detail["warnings"]`` when a chosen lambda is on the grid's edge with the CV error still
falling. NRMSE = sqrt(mean((y_hat - y)^2)) / std(y).

Whole studies: `run_plans` runs several tasks on the same networks and gains together (every
round's blocks of every task as the columns of ONE sparse-times-dense product per step,
`engine.run_blocks`); calling an entry runs it alone, bit for bit the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from wirelab.registry import Registry
from wirelab.reservoir.tasks import decision, lorenz, mackey_glass, memory_capacity, narma10
from wirelab.reservoir.tasks.base import (
    TRAIN,
    Metric,
    Setup,
    Task,
    TaskResult,
    input_weights,
    nrmse,
    run_plans,
)

__all__ = [
    "TASKS",
    "TRAIN",
    "Metric",
    "Setup",
    "Task",
    "TaskResult",
    "input_weights",
    "labelled_metrics",
    "metric_of",
    "nrmse",
    "run_plans",
    "task_names",
]

TASKS = Registry[Task]("task")
"""The benchmark tasks by name (``memory-capacity``, ``narma10``, ``mackey-glass``, ``decision``,
``lorenz``), each a `Task` entry (its plan, metrics and ``--quick`` sizes); what
`wirelab.reservoir.compare` and ``wirelab reservoir run --task`` accept."""
TASKS.add("memory-capacity", memory_capacity.TASK, "sum of squared delay-k recall correlations")
TASKS.add("narma10", narma10.TASK, "NARMA-10 one-step prediction, NRMSE")
TASKS.add("mackey-glass", mackey_glass.TASK, "Mackey-Glass one-step and free-running, NRMSE")
TASKS.add("decision", decision.TASK, "left vs right evidence accumulation, accuracy")
TASKS.add("lorenz", lorenz.TASK, "Lorenz-63 one-step prediction of x, y, z, NRMSE")


def labelled_metrics() -> list[tuple[str, Metric]]:
    """``(label, metric)`` of every registered task's metrics, in registry order (the labels
    are the ``task`` of metrics.json's rows and the keys of its ``summary``)."""
    return [pair for name in TASKS for pair in TASKS.get(name).labelled(name)]


def metric_of(label: str) -> Metric | None:
    """The `Metric` whose rows are labelled ``label`` (a task name or a second score's label,
    e.g. the Mackey-Glass free run's), or None."""
    return next((m for lab, m in labelled_metrics() if lab == label), None)


def task_names(tasks: str | Sequence[str]) -> list[str]:
    """The tasks of a study: a name, or names in order without repeats; ``"all"`` among them
    means every registered task (`TASKS`)."""
    names = [tasks] if isinstance(tasks, str) else list(tasks)
    return list(TASKS) if "all" in names else list(dict.fromkeys(names))
