"""The wide engine of a whole study (every task's blocks at every gain of two networks as the
columns of one product per step, every round, free runs and decision trials included) against a
readable reference that runs one network, one gain and one sequence at a time with
`units.esn_step`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from wirelab.reservoir.engine import Block, BlockRun, run_blocks
from wirelab.reservoir.tasks import TASKS, Setup, run_plans
from wirelab.reservoir.units import Units, esn_step
from wirelab.reservoir.weights import normalize

N = 40
SIZES = {"train": 150, "test": 60, "washout": 20}
PARAMS: dict[str, dict[str, Any]] = {
    "memory-capacity": {**SIZES, "k_max": 8},
    "narma10": SIZES,
    "mackey-glass": {**SIZES, "segments": 3, "warm": 20, "horizon": 12, "val_segments": 2},
    "decision": {"trials": 24, "steps": 8, "read": 3},
    "lorenz": SIZES,
}


def reference_blocks(
    weights: Sequence[sp.csr_matrix],
    alphas: np.ndarray,
    units: Units,
    blocks: Sequence[Block],
    **_: Any,
) -> list[BlockRun]:
    """`engine.run_blocks` written out: each network, gain and sequence stepped on its own,
    the closed-loop steps fed by the readout ``y = x[record] @ coef + intercept``."""
    runs = []
    for blk in blocks:
        u = np.asarray(blk.inputs, dtype=np.float64)  # (T, B, K)
        steps, seqs, k = u.shape
        rec = np.arange(N) if blk.record is None else np.asarray(blk.record)
        m_, g_ = len(weights), len(alphas)
        states = np.zeros((steps - blk.washout, m_, g_, seqs, rec.size))
        final = np.zeros((m_, g_, seqs, N))
        outputs = np.zeros((blk.free + 1 if blk.coef is not None else 0, m_, g_, seqs, k))
        for m, w in enumerate(weights):
            for g, alpha in enumerate(alphas):
                for b in range(seqs):
                    x = np.zeros(N) if blk.state0 is None else np.array(blk.state0[m, g, b])
                    for t in range(steps):
                        x = esn_step(w, x, u[t, b], blk.w_in, units, alpha)
                        if t >= blk.washout:
                            states[t - blk.washout, m, g, b] = x[rec]
                    if blk.coef is not None:
                        assert blk.intercept is not None
                        coef, icpt = blk.coef[m, g, b], blk.intercept[m, g, b]
                        outputs[0, m, g, b] = y = x[rec] @ coef + icpt
                        for t in range(blk.free):
                            x = esn_step(w, x, y, blk.w_in, units, alpha)
                            outputs[t + 1, m, g, b] = y = x[rec] @ coef + icpt
                    final[m, g, b] = x
        runs.append(BlockRun(states, final, outputs))
    return runs


def _setup() -> Setup:
    rng = np.random.default_rng(7)
    nets = [
        normalize(sp.random(N, N, density=0.15, random_state=s, data_rvs=rng.random), "row")
        for s in (1, 2)
    ]
    bias = rng.uniform(-0.2, 0.2, N)
    return Setup(
        nets,
        np.array([0.4, 0.9, 1.3]),
        inputs=np.arange(10),
        outputs=np.arange(5, N),
        left=np.arange(5),
        right=np.arange(5, 10),
        units=Units("tanh", 1.0, 0.3, bias),
        product="torch",
    )


@pytest.mark.parametrize("product", ["torch", "scipy"])
def test_every_round_of_a_study_equals_the_one_network_one_gain_reference(product: str) -> None:
    if product == "torch":
        pytest.importorskip("torch")
    setup = _setup()
    rounds: list[int] = []

    def checked(*args: Any, **kwargs: Any) -> list[BlockRun]:
        wide = run_blocks(*args, **{**kwargs, "product": product})
        ref = reference_blocks(*args, **kwargs)
        for blk, a, b in zip(args[3], wide, ref, strict=True):
            np.testing.assert_allclose(a.states, b.states, rtol=0, atol=1e-12)
            # closed loop: the fed-back readout multiplies a state difference (sums in another
            # order, ~1e-16) by its coefficients' norm, large where CV picks a tiny lambda
            gain = 1.0 if blk.coef is None else 1.0 + float(np.abs(blk.coef).sum(-2).max())
            np.testing.assert_allclose(a.final, b.final, rtol=0, atol=1e-12 * gain)
            np.testing.assert_allclose(a.outputs, b.outputs, rtol=0, atol=1e-12 * gain)
        rounds.append(len(wide))
        return wide  # the plans go on with the wide engine's runs

    tasks = {name: TASKS.get(name) for name in TASKS}
    run_plans(tasks, setup, PARAMS, runner=checked)
    assert rounds[0] == 7 and len(rounds) == 3  # every task's blocks, then two free-run rounds


def test_the_study_scores_equal_each_task_alone_and_both_products() -> None:
    pytest.importorskip("torch")
    setup = _setup()
    tasks = {name: TASKS.get(name) for name in TASKS}
    together = run_plans(tasks, setup, PARAMS)
    scipy_setup = Setup(**{**setup.__dict__, "product": "scipy"})
    with_scipy = run_plans(tasks, scipy_setup, PARAMS)
    for name, task in tasks.items():
        alone = task(setup, **PARAMS[name])
        np.testing.assert_array_equal(together[name].scores, alone.scores)
        # torch's fused elementwise kernels round differently from numpy's (products docstring)
        np.testing.assert_allclose(together[name].scores, with_scipy[name].scores, rtol=1e-4)
