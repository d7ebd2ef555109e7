"""What every task shares: the `Setup`, the `TaskResult`, input weights, NRMSE, the readout fit.

A task is a function ``(setup, **sizes)`` that either returns a `TaskResult` or is a generator
(a *plan*): it yields lists of `engine.Block` (its input sequences), receives one
`engine.BlockRun` per block, may yield again (e.g. closed-loop runs after fitting a readout),
and finally returns its `TaskResult`. `tasks.run_tasks` runs the plans of several tasks together,
each round's blocks of every task as columns of one product per step.

Readouts (`fit_readout`): ridge on the states centred and divided by one number, their root
mean variance ``s`` (so ``lambda`` is relative: the absolute penalty on the raw states is
``lambda * s^2``), with lambda chosen by 3-fold CV over contiguous blocks of the training steps
on `GRID` (1e-12 .. 1e4 in half decades), per output where the outputs are separate targets
(memory-capacity delays, Lorenz components). Why relative: the states' scale varies by orders of
magnitude with the gain (on the larval connectome with a 182-neuron readout, input scaling 0.3,
the states' standard deviation was 3.6e-4 at alpha 0.2), and an absolute grid down to 1e-10 was
still binding for the noise-free one-step targets (Mackey-Glass, Lorenz: CV error falling
1.3-2.4x per half decade at the edge). When a chosen lambda is on the grid's edge with the CV
error still falling there, the task's ``detail["warnings"]`` says so (and how often); a flat
error at the edge (no regularisation needed, or nothing to predict) is not binding.

Training lengths (`TRAIN` = 3,000 steps for memory capacity, NARMA-10, Mackey-Glass and Lorenz)
suit readouts of up to a few thousand neurons: with all 2,952 larval neurons read out, MC was
10.4 at 800 training steps and 12.7 at 3,000.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.reservoir.engine import Block, BlockRun
from wirelab.reservoir.readout import RidgeAccumulator
from wirelab.reservoir.units import LIFUnits, Units

TRAIN = 3000
GRID = 10.0 ** np.arange(-12.0, 4.01, 0.5)  # relative lambdas, 1e-12 .. 1e4 in half decades
EDGE_SLOPE = 0.01  # an edge binds when its neighbour's CV error is > 1% higher

Plan = Generator[list[Block], list[BlockRun], "TaskResult"]


@dataclass(frozen=True)
class Setup:
    """What every task needs; ``weights`` are normalised, gain-free ``(N, N)`` ``[pre, post]``.

    ``backend`` is the product back end of `engine.run_blocks` (``auto``, ``scipy``, ``torch``)
    and ``dtype`` its state precision. float64 by default: float32 states (rounding 6e-8 per
    step) were measured to corrupt readouts near and above the critical gain (larval connectome,
    182 DN-VNC neurons, train 3,000: Lorenz NRMSE 0.058 in float32 vs 4.3e-4 in float64 and in
    reservoirpy at alpha 1.2; MC 2-8% and one-step Mackey-Glass NRMSE up to 1.7x worse at other
    gains); float64 costs ~1.7x.
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
    backend: str = "auto"
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


@dataclass
class Readout:
    """A fitted linear readout ``y = ((x - shift) / scale) @ coef + intercept``: ``coef``
    ``(F, O)``, ``intercept`` ``(O,)``, the chosen (relative) ``lam`` ``(O,)``, ``edge``
    ``(O,)`` (-1 / +1 where the CV error still falls at the grid's low / high edge, else 0) and
    the CV errors ``(L, O)``."""

    coef: np.ndarray
    intercept: np.ndarray
    lam: np.ndarray
    edge: np.ndarray
    cv_errors: np.ndarray
    shift: np.ndarray
    scale: float

    def predict(self, x: np.ndarray) -> np.ndarray:
        """``x`` ``(T, F)`` -> ``(T, O)``."""
        z = (np.asarray(x, dtype=np.float64) - self.shift) / self.scale
        return z @ self.coef + self.intercept

    def raw(self) -> tuple[np.ndarray, np.ndarray]:
        """The same map as ``x @ W + b``: ``(W (F, O), b (O,))``."""
        w = self.coef / self.scale
        return w, self.intercept - self.shift @ w


def choose_lambda(err: np.ndarray, grid: np.ndarray = GRID) -> tuple[np.ndarray, np.ndarray]:
    """Per column of CV errors ``err`` ``(L, O)``: the index of the smallest error (ties: the
    larger lambda) and the edge flag: -1 (+1) when the smallest (largest) lambda is chosen and
    its neighbour's error is more than `EDGE_SLOPE` higher, i.e. the error still falls at the
    edge; a flat error there (a plateau: no regularisation needed, or nothing to predict) is not
    binding."""
    size = err.shape[0]
    idx = size - 1 - np.argmin(err[::-1], axis=0)
    cols = np.arange(err.shape[1])
    edge = np.zeros(err.shape[1], dtype=np.int64)
    if size > 1:
        low = (idx == 0) & (err[1, cols] > err[0, cols] * (1 + EDGE_SLOPE))
        high = (idx == size - 1) & (err[-2, cols] > err[-1, cols] * (1 + EDGE_SLOPE))
        edge[low], edge[high] = -1, 1
    return idx, edge


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``((x - m) / s, m, s)``: ``m`` the column means ``(F,)``, ``s`` the root mean column
    variance (one number, so relative lambdas mean the same at every gain and network)."""
    m = x.mean(0)
    s = float(np.sqrt(np.mean(x.var(0))))
    s = s if s > 0 and np.isfinite(s) else 1.0
    return (x - m) / s, m, s


def accumulate(x: np.ndarray, y: np.ndarray, folds: int) -> RidgeAccumulator:
    """`RidgeAccumulator` of ``x`` ``(T, F)``, ``y`` ``(T, O)`` over contiguous row blocks."""
    acc = RidgeAccumulator(x.shape[1], y.shape[1], folds)
    for f, idx in enumerate(np.array_split(np.arange(x.shape[0]), folds)):
        acc.partial_fit(x[idx], y[idx], f)
    return acc


def fit_readout(
    x: np.ndarray, y: np.ndarray, *, folds: int = 3, per_output: bool = False
) -> Readout:
    """Ridge ``x`` ``(T, F)`` -> ``y`` ``(T, O)`` (`readout`'s estimator) on `standardise`d
    features, lambda by CV over ``folds`` contiguous blocks on `GRID`, one per output
    (``per_output``) or one minimising the mean error over outputs; fitted from the blocks'
    sufficient statistics (centring first keeps them exact: a state's mean can be hundreds of
    its standard deviations)."""
    y = np.asarray(y, dtype=np.float64)
    y = y[:, None] if y.ndim == 1 else y
    z, shift, scale = standardise(np.asarray(x, dtype=np.float64))
    acc = accumulate(z, y, folds)
    err = acc.cv_errors(GRID, per_output=True)  # (L, O)
    if per_output:
        pick, edge = choose_lambda(err)
        lam = GRID[pick]
        coef, icpt = acc.solve(lam)
    else:
        pick, edge = choose_lambda(err.mean(1, keepdims=True))
        lam = np.full(y.shape[1], GRID[pick[0]])
        edge = np.full(y.shape[1], edge[0])
        coef, icpt = acc.solve(float(lam[0]))
    return Readout(coef, icpt, lam, edge, err, shift, scale)


def edge_warnings(task: str, edge: np.ndarray, grid: np.ndarray = GRID) -> list[str]:
    """One line per grid edge where the chosen lambdas bind (``edge`` flags, any shape)."""
    out = []
    low, high = int(np.sum(edge < 0)), int(np.sum(edge > 0))
    if low:
        out.append(
            f"{task}: the ridge lambda is on the grid's low edge ({grid[0]:.0e}) with the CV "
            f"error still falling in {low} of {edge.size} fits: the grid limits the readout"
        )
    if high:
        out.append(
            f"{task}: the ridge lambda is on the grid's high edge ({grid[-1]:.0e}) with the CV "
            f"error still falling in {high} of {edge.size} fits: the readout does no better "
            "than a constant there"
        )
    return out


def lambda_detail(task: str, lam: np.ndarray, edge: np.ndarray) -> dict[str, Any]:
    """``lambda`` (chosen values), ``lambda_on_edge`` (fraction of fits where the grid binds)
    and ``warnings`` for a task's ``detail``."""
    return {
        "lambda": lam,
        "lambda_on_edge": float(np.mean(edge != 0)) if edge.size else 0.0,
        "warnings": edge_warnings(task, edge),
    }
