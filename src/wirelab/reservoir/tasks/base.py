"""What every task shares: the entry type `Task` with its `Metric` s, the `Setup`, the
`TaskResult`, input weights, NRMSE, and `run_plans`, which runs several tasks together.

A task's ``plan`` is a function ``(setup, **sizes)`` that either returns a `TaskResult` or is a
generator (a *plan*): it yields lists of `engine.Block` (its input sequences), receives one
`engine.BlockRun` per block, may yield again (e.g. closed-loop runs after fitting a readout),
and finally returns its `TaskResult`. `run_plans` runs the plans of several tasks together, each
round's blocks of every task as columns of one product per step (`engine.run_blocks`). Each
column's arithmetic does not depend on the others, so a task's result is bit for bit the same
run alone (calling its entry, ``TASKS.get(name)(setup, **sizes)``) or with others.

The `Task` entry carries everything the rest of the code needs to know about a task, so the
experiment, its figure and the report loop over entries and never name one: its plan, its
``--quick`` sizes, the `Metric` s it writes (name, direction, log scale, the report's words),
the detail it adds to each network's summary, and what it requires (left and right input
populations; rate units).

Training lengths (`TRAIN` = 3,000 steps for memory capacity, NARMA-10, Mackey-Glass and Lorenz)
suit readouts of up to a few thousand neurons: with all 2,952 larval neurons read out, MC was
10.4 at 800 training steps and 12.7 at 3,000.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from wirelab.reservoir.engine import Block, BlockRun, run_blocks
from wirelab.reservoir.units import LIFUnits, Units

TRAIN = 3000

Plan = Generator[list[Block], list[BlockRun], "TaskResult"]
Runner = Callable[..., list[BlockRun]]  # `engine.run_blocks`'s signature


@dataclass(frozen=True)
class Setup:
    """What every task needs; ``weights`` are normalised, gain-free ``(N, N)`` ``[pre, post]``.

    ``product`` is the sparse product of `engine.run_blocks` (``auto``, ``scipy``, ``torch``)
    and ``dtype`` its state precision. float64 by default: float32 states (rounding 6e-8 per
    step) were measured to corrupt readouts near and above the critical gain (larval connectome,
    182 DN-VNC neurons, train 3,000: Lorenz NRMSE 0.058 in float32 vs 4.3e-4 in float64 and in
    reservoirpy at alpha 1.2; MC 2-8% and one-step Mackey-Glass NRMSE up to 1.7x worse at other
    gains).
    """

    weights: Sequence[sp.csr_matrix]
    alphas: np.ndarray
    inputs: np.ndarray
    outputs: np.ndarray
    left: np.ndarray | None = None
    right: np.ndarray | None = None
    units: Units | LIFUnits = field(default_factory=Units)
    seed: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    product: str = "auto"
    dtype: Any = np.float64

    @property
    def n(self) -> int:
        return int(self.weights[0].shape[0])


@dataclass
class TaskResult:
    task: str
    metric: str
    definition: str
    higher_is_better: bool
    scores: np.ndarray  # (M, G)
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Metric:
    """One score a task writes: rows of metrics.json (``task`` = `label`, ``metric`` = `name`),
    a summary (`stats.summarize`), a panel of score_vs_alpha.png and the report's question.

    ``detail`` None: the scores are `TaskResult.scores`; else the ``(M, G)`` array
    ``TaskResult.detail[detail]`` (a second score of the same run, e.g. free-running error).
    ``label`` None: the rows carry the task's registry name. ``words`` complete the report's
    question "Does the connectome WORDS than its nulls?" (empty: a generic question);
    ``headline``: the report prefers this metric as a run's headline (in registry order).
    """

    name: str
    higher_is_better: bool
    log_scale: bool = False
    words: str = ""
    label: str | None = None
    detail: str | None = None
    headline: bool = False

    def scores(self, result: TaskResult) -> np.ndarray:
        """This metric's ``(M, G)`` scores in ``result``."""
        return result.scores if self.detail is None else np.asarray(result.detail[self.detail])


@dataclass(frozen=True)
class Task:
    """A registered task (`TASKS` entry): ``plan(setup, **sizes)`` and what is known about it.

    - ``metrics``: the scores it writes, ``metrics[0]`` its own (`TaskResult.scores`);
    - ``quick``: its sizes under ``--quick`` (tours and tests);
    - ``network_detail``: keys of `TaskResult.detail` copied into each network's entry of
      metrics.json (arrays ``(M, ...)`` as the network's row, other values as they are);
    - ``needs_sides``: it needs left and right input neurons (`Setup.left`, `Setup.right`);
    - ``rate_units_only``: why LIF units cannot run it (empty: they can).

    Calling the entry runs the task alone: ``TASKS.get("narma10")(setup, train=600)``.
    """

    plan: Callable[..., Plan | TaskResult]
    metrics: tuple[Metric, ...]
    quick: Mapping[str, Any] = field(default_factory=dict)
    network_detail: tuple[str, ...] = ()
    needs_sides: bool = False
    rate_units_only: str = ""

    @property
    def words(self) -> str:
        """The report's words for the task's own metric (``metrics[0].words``)."""
        return self.metrics[0].words

    def labelled(self, name: str) -> list[tuple[str, Metric]]:
        """``(label, metric)`` for every metric of the task registered as ``name``."""
        return [(m.label or name, m) for m in self.metrics]

    def __call__(self, setup: Setup, **sizes: Any) -> TaskResult:
        """Run the task alone on ``setup`` (``sizes``: its keyword sizes)."""
        return run_plans({"task": self}, setup, {"task": sizes})["task"]


def input_weights(n: int, populations: Sequence[np.ndarray], seed: int, signed: bool) -> np.ndarray:
    """``(K, N)`` ``[channel, post]``: channel k feeds population k, U[-1, 1] (signed) or 1."""
    rng = np.random.default_rng(seed + 104729)
    w = np.zeros((len(populations), n))
    for k, pop in enumerate(populations):
        w[k, pop] = rng.uniform(-1.0, 1.0, pop.size) if signed else 1.0
    return w


def nrmse(pred: np.ndarray, target: np.ndarray) -> float:
    """``sqrt(mean((pred - target)^2)) / std(target)``."""
    return float(np.sqrt(np.mean((pred - target) ** 2)) / np.std(target))


def run_plans(
    tasks: Mapping[str, Task],
    setup: Setup,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    runner: Runner = run_blocks,
) -> dict[str, TaskResult]:
    """Run the ``tasks`` (name -> entry) on ``setup`` together (``params``: sizes per name).

    A task whose plan is a plain function (returning a `TaskResult`) runs on its own; plans
    (generators) run together, one product per step for all their blocks of a round.
    ``runner`` replaces `engine.run_blocks` (a benchmark runs the same plans on another engine).
    """
    params = params or {}
    done: dict[str, TaskResult] = {}
    plans: dict[str, Plan] = {}
    for name, task in tasks.items():
        out = task.plan(setup, **params.get(name, {}))
        if inspect.isgenerator(out):
            plans[name] = cast(Plan, out)
        else:
            done[name] = cast(TaskResult, out)
    done.update(_drive(plans, setup, runner))
    return {name: done[name] for name in tasks}


def _drive(plans: Mapping[str, Plan], setup: Setup, runner: Runner) -> dict[str, TaskResult]:
    """Advance the plans round by round: each round's blocks of all of them in one ``runner``
    call, each plan sent its own runs, until every plan has returned its `TaskResult`."""
    done: dict[str, TaskResult] = {}
    asks: dict[str, list[Block]] = {}

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
            product=setup.product,
            dtype=setup.dtype,
            settings=setup.settings,
        )
        at = 0
        for name in order:
            count = len(asks[name])
            advance(name, runs[at : at + count])
            at += count
    return done
