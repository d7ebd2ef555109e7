"""The four benchmark tasks, batched over M networks x G gains; each states its metric.

Every task takes a `Setup` (normalised matrices ``[pre, post]``, gains, input and readout
populations, units, seed) and returns a `TaskResult` with ``scores`` of shape ``(M, G)``. Inputs,
input weights and train/test splits depend only on the seed, so the connectome and its nulls see
identical data (paired comparisons). Readouts see only the recorded ``outputs`` population.

- ``memory-capacity`` (Jaeger 2001): ``u ~ U[-0.8, 0.8]``; for each delay k = 1..k_max a ridge
  readout is trained to output ``u(t-k)``; ``MC = sum_k corr(y_k, u(t-k))^2`` on held-out steps.
- ``narma10``: input ``u``, target ``y(t+1)`` of `timeseries.narma10`; NRMSE on held-out steps.
- ``mackey-glass``: tau=17 series (z-scored); one-step NRMSE of ``x(t+1)``; then 84-step
  free-running prediction: S held-out segments are teacher-forced for a warm-up, then the
  readout's output is fed back as input for 84 steps; NRMSE_84 is taken at the 84th step over
  the S segments (Jaeger & Haas 2004).
- ``decision``: each trial delivers noisy evidence ``0.5 + s*c/2 + 0.5 xi(t)`` to the left and
  ``0.5 - s*c/2 + 0.5 xi'(t)`` to the right sensory population for 20 steps (s = +-1, evidence
  strength c); the readout (mean output over the last 5 steps, ridge classifier) must report the
  stronger side. Accuracy on held-out trials, overall and per strength.

NRMSE = sqrt(mean((y_hat - y)^2)) / std(y).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.errors import UsageError
from wirelab.registry import Registry
from wirelab.reservoir.dynamics import Reservoir
from wirelab.reservoir.readout import Ridge, RidgeClassifier
from wirelab.reservoir.timeseries import mackey_glass, narma10_series
from wirelab.reservoir.units import LIFUnits, Units

LAMBDAS = tuple(10.0 ** np.arange(-6.0, 3.0, 2.0))  # 1e-6 .. 1e2


@dataclass(frozen=True)
class Setup:
    """What every task needs; ``weights`` are normalised, gain-free ``(N, N)`` ``[pre, post]``."""

    weights: Sequence[sp.csr_matrix]
    alphas: np.ndarray
    inputs: np.ndarray
    outputs: np.ndarray
    left: np.ndarray | None = None
    right: np.ndarray | None = None
    units: Units | LIFUnits = field(default_factory=Units)
    seed: int = 0
    settings: dict[str, Any] = field(default_factory=dict)

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


def _reservoir(setup: Setup, w_in: np.ndarray, batch: int = 1) -> Reservoir:
    return Reservoir(
        list(setup.weights),
        w_in,
        alphas=setup.alphas,
        units=setup.units,
        batch=batch,
        settings=setup.settings,
    )


def nrmse(pred: np.ndarray, target: np.ndarray) -> float:
    return float(np.sqrt(np.mean((pred - target) ** 2)) / np.std(target))


def _fit_eval(states: np.ndarray, target: np.ndarray, train: slice, test: slice) -> list[Any]:
    """Per (m, g): ridge (CV lambda) on ``states[train]`` -> predictions on ``states[test]``.

    ``states`` ``(T, M, G, P)``, ``target`` ``(T, O)``; returns ``[[pred (T_test, O)]]`` by m, g.
    """
    out = []
    for m in range(states.shape[1]):
        row = []
        for g in range(states.shape[2]):
            x = states[:, m, g].astype(np.float64)
            model = Ridge(LAMBDAS, folds=3).fit(x[train], target[train])
            row.append((model.predict(x[test]), model))
        out.append(row)
    return out


def memory_capacity(
    setup: Setup, *, k_max: int = 50, train: int = 800, test: int = 400, washout: int = 50
) -> TaskResult:
    rng = np.random.default_rng(setup.seed)
    length = washout + k_max + train + test
    u = rng.uniform(-0.8, 0.8, length)
    res = _reservoir(setup, input_weights(setup.n, [setup.inputs], setup.seed, True))
    states = res.run(u[:, None], record=setup.outputs).states[:, :, :, 0]  # (T, M, G, P)
    t0 = washout + k_max
    delays = np.stack([np.roll(u, k) for k in range(1, k_max + 1)], 1)  # (T, k_max): u(t-k)
    fits = _fit_eval(states, delays, slice(t0, t0 + train), slice(t0 + train, length))
    scores = np.zeros((res.m, res.g))
    per_delay = np.zeros((res.m, res.g, k_max))
    target = delays[t0 + train :]
    for m, row in enumerate(fits):
        for g, (pred, _) in enumerate(row):
            for k in range(k_max):
                c = np.corrcoef(pred[:, k], target[:, k])[0, 1]
                per_delay[m, g, k] = 0.0 if not np.isfinite(c) else c * c
            scores[m, g] = per_delay[m, g].sum()
    return TaskResult(
        "memory-capacity",
        "MC",
        f"MC = sum_(k=1..{k_max}) corr(y_k(t), u(t-k))^2 on {test} held-out steps, "
        f"u ~ U[-0.8, 0.8], ridge readout per delay (Jaeger 2001)",
        True,
        scores,
        {"per_delay": per_delay},
    )


def narma(setup: Setup, *, train: int = 800, test: int = 400, washout: int = 50) -> TaskResult:
    length = washout + train + test + 1
    u, y = narma10_series(length, setup.seed)
    res = _reservoir(setup, input_weights(setup.n, [setup.inputs], setup.seed, True))
    states = res.run((u - 0.25)[:, None] * 4.0, record=setup.outputs).states[:, :, :, 0]
    target = np.roll(y, -1)[:, None]  # y(t+1) at step t
    fits = _fit_eval(
        states[:-1],
        target[:-1],
        slice(washout, washout + train),
        slice(washout + train, length - 1),
    )
    truth = target[washout + train : length - 1, 0]
    scores = np.array([[nrmse(p[:, 0], truth) for p, _ in row] for row in fits])
    return TaskResult(
        "narma10",
        "NRMSE",
        f"NRMSE = rms(y_hat - y) / std(y) of y(t+1) on {test} held-out steps; "
        "y(t+1) = 0.3y(t) + 0.05y(t)sum_(i=0..9)y(t-i) + 1.5u(t-9)u(t) + 0.1, u ~ U[0, 0.5]",
        False,
        scores,
    )


def mackey_glass_task(
    setup: Setup,
    *,
    train: int = 800,
    test: int = 400,
    washout: int = 50,
    horizon: int = 84,
    segments: int = 10,
    warm: int = 50,
) -> TaskResult:
    length = washout + train + test + 1
    series = mackey_glass(length + segments * (warm + horizon + 1) + 1)
    mu, sd = series[:length].mean(), series[:length].std()
    z = (series - mu) / sd
    w_in = input_weights(setup.n, [setup.inputs], setup.seed, True)
    res = _reservoir(setup, w_in)
    states = res.run(z[:length, None], record=setup.outputs).states[:, :, :, 0]
    target = z[1 : length + 1, None]  # x(t+1) at step t
    fits = _fit_eval(
        states, target, slice(washout, washout + train), slice(washout + train, length)
    )
    truth = target[washout + train : length, 0]
    one_step = np.array([[nrmse(p[:, 0], truth) for p, _ in row] for row in fits])
    # free running from held-out segments after the training series
    coef = np.stack([np.stack([mdl.coef_[:, 0] for _, mdl in row]) for row in fits])  # (M, G, P)
    icpt = np.array([[mdl.intercept_[0] for _, mdl in row] for row in fits])  # (M, G)
    starts = length + 1 + np.arange(segments) * (warm + horizon + 1)
    teach = np.stack([z[s : s + warm] for s in starts], 1)[:, :, None]  # (warm, S, 1)
    free = _reservoir(setup, w_in, batch=segments)
    run = free.run(teach, record=setup.outputs)
    state = run.final  # (M, G, S, N)
    pred = np.einsum("mgsp,mgp->mgs", run.states[-1], coef) + icpt[:, :, None]  # x(s + warm)
    for _ in range(horizon - 1):
        state = free.step(state, pred[..., None].astype(np.float32))
        pred = np.einsum("mgsp,mgp->mgs", state[..., setup.outputs], coef) + icpt[:, :, None]
    truth84 = np.array([z[s + warm + horizon - 1] for s in starts])  # (S,)
    free_nrmse = np.sqrt(np.mean((pred - truth84) ** 2, axis=-1)) / np.std(z[:length])
    return TaskResult(
        "mackey-glass",
        "NRMSE",
        f"one-step: NRMSE of x(t+1) on {test} held-out steps; free-running: NRMSE at step "
        f"{horizon} over {segments} held-out segments, readout fed back as input after {warm} "
        "teacher-forced steps (Jaeger & Haas 2004); tau=17, z-scored",
        False,
        one_step,
        {"free_running_nrmse": free_nrmse},
    )


def decision(
    setup: Setup,
    *,
    trials: int = 160,
    steps: int = 20,
    read: int = 5,
    strengths: Sequence[float] = (0.05, 0.1, 0.2, 0.4),
    noise: float = 0.5,
) -> TaskResult:
    if setup.left is None or setup.right is None:
        raise UsageError("the decision task needs left and right input populations")
    rng = np.random.default_rng(setup.seed)
    side = np.where(np.arange(trials) % 2 == 0, 1.0, -1.0)  # +1: left stronger
    strength = np.asarray(strengths)[(np.arange(trials) // 2) % len(strengths)]
    perm = rng.permutation(trials)
    side, strength = side[perm], strength[perm]
    ev = np.empty((steps, trials, 2))
    ev[:, :, 0] = 0.5 + side * strength / 2 + noise * rng.standard_normal((steps, trials))
    ev[:, :, 1] = 0.5 - side * strength / 2 + noise * rng.standard_normal((steps, trials))
    w_in = input_weights(setup.n, [setup.left, setup.right], setup.seed, signed=False)
    res = _reservoir(setup, w_in, batch=trials)
    states = res.run(ev, record=setup.outputs, washout=steps - read).states  # (read, M, G, B, P)
    feats = states.mean(0)  # (M, G, B, P)
    labels = np.where(side > 0, "left", "right")
    train = np.arange(trials) < trials // 2
    scores = np.zeros((res.m, res.g))
    by_strength = np.zeros((res.m, res.g, len(strengths)))
    for m in range(res.m):
        for g in range(res.g):
            x = feats[m, g].astype(np.float64)
            clf = RidgeClassifier(LAMBDAS, folds=3).fit(x[train], labels[train])
            hit = clf.predict(x[~train]) == labels[~train]
            scores[m, g] = hit.mean()
            for i, c in enumerate(strengths):
                by_strength[m, g, i] = hit[strength[~train] == c].mean()
    return TaskResult(
        "decision",
        "accuracy",
        f"accuracy on {trials - trials // 2} held-out trials of reporting the side with the "
        f"stronger mean evidence; {steps} steps of 0.5 +- c/2 + {noise}*N(0,1) to left/right "
        f"sensory neurons, c in {list(strengths)}; ridge classifier on outputs averaged over the "
        f"last {read} steps",
        True,
        scores,
        {"strengths": list(strengths), "accuracy_by_strength": by_strength},
    )


TASKS = Registry[Callable[..., TaskResult]]("task")
TASKS.add("memory-capacity", memory_capacity, "sum of squared delay-k recall correlations")
TASKS.add("narma10", narma, "NARMA-10 one-step prediction, NRMSE")
TASKS.add("mackey-glass", mackey_glass_task, "Mackey-Glass one-step and free-running, NRMSE")
TASKS.add("decision", decision, "left vs right evidence accumulation, accuracy")


def run_task(name: str, setup: Setup, **params: Any) -> TaskResult:
    """Run the task registered as ``name`` on ``setup`` (``params``: its keyword sizes)."""
    return TASKS.get(name)(setup, **params)
