"""Left-vs-right evidence accumulation (two input channels, one trial per column).

Each trial delivers noisy evidence ``0.5 + s*c/2 + noise*xi(t)`` to the left and
``0.5 - s*c/2 + noise*xi'(t)`` to the right input population for ``steps`` steps (s = +-1,
evidence strength c, weight 1 per input neuron); a ridge classifier (lambda by CV) on the readout
neurons' states averaged over the last ``read`` steps must report the stronger side. Accuracy on
held-out trials, overall and per strength.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.engine import Block
from wirelab.reservoir.ridge import GRID, RidgeClassifier, choose_lambda, lambda_detail
from wirelab.reservoir.tasks.base import Metric, Plan, Setup, Task, TaskResult, input_weights


def decision_plan(
    setup: Setup,
    *,
    trials: int = 160,
    steps: int = 20,
    read: int = 5,
    strengths: Sequence[float] = (0.05, 0.1, 0.2, 0.4),
    noise: float = 0.5,
    folds: int = 3,
) -> Plan:
    """``trials`` left-vs-right trials (half for training): ``scores`` ``(M, G)`` the held-out
    accuracy, ``detail["accuracy_by_strength"]`` ``(M, G, len(strengths))``."""
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
    (run,) = yield [Block(w_in, ev, record=setup.outputs, washout=steps - read)]
    feats = run.states.mean(0)  # (M, G, B, P)
    labels = np.where(side > 0, "left", "right")
    train = np.arange(trials) < trials // 2
    m_, g_ = feats.shape[:2]
    scores = np.zeros((m_, g_))
    by_strength = np.zeros((m_, g_, len(strengths)))
    lam = np.zeros((m_, g_))
    edge = np.zeros((m_, g_), dtype=np.int64)
    for m in range(m_):
        for g in range(g_):
            x = feats[m, g].astype(np.float64)
            clf = RidgeClassifier(GRID.tolist(), folds=folds).fit(x[train], labels[train])
            lam[m, g] = float(clf.ridge.ridge_ or 0.0)
            assert clf.ridge.cv_errors_ is not None
            edge[m, g] = choose_lambda(clf.ridge.cv_errors_[:, None])[1][0]
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
        {
            "strengths": list(strengths),
            "accuracy_by_strength": by_strength,
            **lambda_detail("decision", lam, edge),
        },
    )


TASK = Task(
    decision_plan,
    (Metric("accuracy", higher_is_better=True),),
    quick={"trials": 120},
    network_detail=("accuracy_by_strength", "strengths"),
    needs_sides=True,
)
