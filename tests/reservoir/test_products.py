"""The product implementations of `engine.run_blocks` against the readable reference path
(``scipy``: scipy's CSR kernel and numpy's update): the same states to rounding, and ``auto``
picks MKL's product with numpy's update in float64 (the fast path) and torch's in float32."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.reservoir.engine import Block, run_blocks
from wirelab.reservoir.products import ChunkedProduct
from wirelab.reservoir.units import Units
from wirelab.reservoir.weights import normalize

pytest.importorskip("torch")

N = 40


def _net(seed: int, density: float = 0.15) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    w = sp.random(N, N, density=density, random_state=seed, data_rvs=rng.standard_normal)
    return normalize(w, "spectral")


def test_auto_is_mkl_in_float64_and_torch_in_float32() -> None:
    eye = sp.eye(4, format="csr")
    assert ChunkedProduct(eye.astype(np.float64), "auto").name == "mkl"
    assert ChunkedProduct(eye.astype(np.float32), "auto").name == "torch"
    mkl64 = ChunkedProduct(eye.astype(np.float64), "mkl")
    assert mkl64.chunks([12, 40]) == [12, 16, 16, 8]  # cut per group, not padded
    assert ChunkedProduct(eye.astype(np.float32), "mkl").chunks([12]) == [16]  # padded


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    leak=st.sampled_from([1.0, 0.6]),
    activation=st.sampled_from(["tanh", "sigmoid", "linear"]),
    widths=st.lists(st.integers(1, 7), min_size=1, max_size=3),
)
def test_fast_path_agrees_with_the_reference(
    seed: int, leak: float, activation: str, widths: list[int]
) -> None:
    rng = np.random.default_rng(seed)
    nets = [_net(seed), _net(seed + 1)]
    units = Units(activation, leak=leak, input_scaling=0.5, bias=rng.uniform(-0.2, 0.2, N))
    blocks = [
        Block(rng.uniform(-1, 1, (2, N)), rng.uniform(-1, 1, (10 + 7 * i, b, 2)), None, 2)
        for i, b in enumerate(widths)
    ]
    alphas = [0.4, 1.1]
    ref = run_blocks(nets, alphas, units, blocks, dtype=np.float64, product="scipy")
    for product in ("mkl", "auto", "torch"):
        fast = run_blocks(nets, alphas, units, blocks, dtype=np.float64, product=product)
        for a, b in zip(fast, ref, strict=True):
            np.testing.assert_allclose(a.states, b.states, rtol=0, atol=1e-12)
            np.testing.assert_allclose(a.final, b.final, rtol=0, atol=1e-12)


def test_closed_loop_agrees_with_the_reference() -> None:
    rng = np.random.default_rng(5)
    nets = [_net(7)]
    units = Units("tanh", input_scaling=0.3, bias=0.05)
    k, p, b = 1, 6, 3
    blk = Block(
        rng.uniform(-1, 1, (k, N)), rng.uniform(-1, 1, (15, b, k)), np.arange(p), 0, free=9,
        coef=rng.normal(0, 0.3, (1, 2, b, p, k)), intercept=rng.normal(0, 0.1, (1, 2, b, k)),
    )  # fmt: skip
    (ref,) = run_blocks(nets, [0.5, 0.9], units, [blk], dtype=np.float64, product="scipy")
    (fast,) = run_blocks(nets, [0.5, 0.9], units, [blk], dtype=np.float64, product="mkl")
    np.testing.assert_allclose(fast.outputs, ref.outputs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.final, ref.final, rtol=0, atol=1e-12)


def test_mkl_float64_columns_do_not_depend_on_their_neighbours() -> None:
    # unpadded chunks: the same block alone (one 3-column chunk) and batched (cut at 16)
    rng = np.random.default_rng(3)
    nets = [_net(11)]
    units = Units("tanh", input_scaling=0.4, bias=0.1)
    blocks = [
        Block(rng.uniform(-1, 1, (1, N)), rng.uniform(-1, 1, (30, b, 1)), None, 0)
        for b in (1, 9, 4)
    ]
    together = run_blocks(nets, [0.7, 1.2, 0.3], units, blocks, dtype=np.float64, product="mkl")
    for blk, run in zip(blocks, together, strict=True):
        (alone,) = run_blocks(nets, [0.7, 1.2, 0.3], units, [blk], dtype=np.float64, product="mkl")
        np.testing.assert_array_equal(run.states, alone.states)
