from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from wirelab.errors import UsageError
from wirelab.reservoir.blocks import BlockColumns, column_groups
from wirelab.reservoir.engine import Block, run_blocks
from wirelab.reservoir.products import ChunkedProduct
from wirelab.reservoir.units import LIFUnits, Units, esn_step
from wirelab.reservoir.weights import normalize

N = 50


def _net(seed: int) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    w = sp.random(N, N, density=0.12, random_state=seed, data_rvs=rng.standard_normal)
    return normalize(w, "spectral")


@pytest.fixture(scope="module")
def nets() -> list[sp.csr_matrix]:
    return [_net(1), _net(2)]


UNITS = Units("tanh", leak=0.8, input_scaling=0.7, bias=0.1)
ALPHAS = [0.5, 0.9, 1.3]


def _blocks(rng: np.random.Generator) -> list[Block]:
    """Blocks of different lengths, channels and widths (B * G = 3, 12, 15 columns)."""
    return [
        Block(rng.uniform(-1, 1, (1, N)), rng.uniform(-1, 1, (60, 1, 1)), np.arange(10, 30), 5),
        Block(rng.uniform(-1, 1, (3, N)), rng.uniform(-1, 1, (25, 4, 3)), np.arange(5)),
        Block(rng.uniform(-1, 1, (2, N)), rng.uniform(-1, 1, (8, 5, 2)), None, 6),
    ]


def test_blocks_follow_the_reference_update(nets: list[sp.csr_matrix]) -> None:
    blocks = _blocks(np.random.default_rng(0))
    runs = run_blocks(nets, ALPHAS, UNITS, blocks, dtype=np.float64, product="scipy")
    for blk, run in zip(blocks, runs, strict=True):
        rec = np.arange(N) if blk.record is None else blk.record
        t, b, _ = blk.inputs.shape
        assert run.states.shape == (t - blk.washout, 2, 3, b, rec.size)
        assert run.final.shape == (2, 3, b, N) and run.outputs.shape[0] == 0
        for m, w in enumerate(nets):
            for g, a in enumerate(ALPHAS):
                x = np.zeros((b, N))
                trace = []
                for step in range(t):
                    x = esn_step(w, x, blk.inputs[step], blk.w_in, UNITS, a)
                    trace.append(x[:, rec])
                ref = np.array(trace)[blk.washout :]
                np.testing.assert_allclose(run.states[:, m, g], ref, atol=1e-12)
                np.testing.assert_allclose(run.final[m, g], x, atol=1e-12)


def _closed(rng: np.random.Generator, m: int = 2) -> Block:
    coef = rng.standard_normal((m, 3, 4, 5, 2)) * 0.1
    icpt = rng.standard_normal((m, 3, 4, 2)) * 0.1
    u = rng.uniform(-1, 1, (10, 4, 2))
    return Block(rng.uniform(-1, 1, (2, N)), u, np.arange(5), free=7, coef=coef, intercept=icpt)


def test_closed_loop_feeds_the_readout_back(nets: list[sp.csr_matrix]) -> None:
    blk = _closed(np.random.default_rng(1))
    (run,) = run_blocks(nets, ALPHAS, UNITS, [blk], dtype=np.float64, product="scipy")
    assert run.outputs.shape == (8, 2, 3, 4, 2)
    assert blk.coef is not None and blk.intercept is not None
    for m, w in enumerate(nets):
        for g, a in enumerate(ALPHAS):
            x = np.zeros((4, N))
            for step in range(10):
                x = esn_step(w, x, blk.inputs[step], blk.w_in, UNITS, a)
            ys = []
            for step in range(8):
                y = np.einsum("bp,bpk->bk", x[:, :5], blk.coef[m, g]) + blk.intercept[m, g]
                ys.append(y)
                if step < 7:
                    x = esn_step(w, x, y, blk.w_in, UNITS, a)
            np.testing.assert_allclose(run.outputs[:, m, g], np.array(ys), atol=1e-12)
            np.testing.assert_allclose(run.final[m, g], x, atol=1e-12)


@pytest.mark.parametrize("product", ["scipy", "torch", "mkl"])
@pytest.mark.parametrize("m", [1, 2])
def test_a_block_alone_equals_the_block_batched_bit_for_bit(
    nets: list[sp.csr_matrix], product: str, m: int
) -> None:
    # MKL picks its kernel by width; fixed chunks of 16 columns keep every column's sums alike
    rng = np.random.default_rng(2)
    blocks = [*_blocks(rng), _closed(rng, m)]
    blocks.append(
        Block(
            rng.uniform(-1, 1, (1, N)),
            np.zeros((0, 3, 1)),
            np.arange(7),
            0,
            state0=rng.uniform(-0.5, 0.5, (m, 3, 3, N)),
        )
    )
    blocks.append(Block(rng.uniform(-1, 1, (1, N)), rng.uniform(-1, 1, (12, 40, 1)), np.arange(9)))
    nw = nets[:m]
    together = run_blocks(nw, ALPHAS, UNITS, blocks, product=product)
    for blk, run in zip(blocks, together, strict=True):
        (alone,) = run_blocks(nw, ALPHAS, UNITS, [blk], product=product)
        np.testing.assert_array_equal(run.states, alone.states)
        np.testing.assert_array_equal(run.final, alone.final)
        np.testing.assert_array_equal(run.outputs, alone.outputs)
    # float32 states agree with the float64 reference path to float32 precision
    ref = run_blocks(nw, ALPHAS, UNITS, blocks[:3], dtype=np.float64, product="scipy")
    for a, b in zip(together[:3], ref, strict=True):
        np.testing.assert_allclose(a.states, b.states, atol=2e-5)


def test_chunks_are_cut_per_group_but_torch_has_one_width() -> None:
    for dtype in (np.float32, np.float64):  # torch: 16 wide, padded (products docstring)
        torch_prod = ChunkedProduct(sp.eye(4, format="csr", dtype=dtype), "torch")
        assert torch_prod.chunks([1]) == [16] and torch_prod.chunks([30, 10]) == [16, 16, 16]
    scipy_prod = ChunkedProduct(sp.eye(4, format="csr", dtype=np.float32), "scipy")
    assert scipy_prod.chunks([300]) == [256, 44] and scipy_prod.chunks([0]) == [0]


def test_short_blocks_start_a_group_of_their_own() -> None:
    w_in = np.ones((1, 3))
    lengths = [100, 90, 51, 40, 8, 8]
    cols = [
        BlockColumns(
            Block(w_in, np.zeros((t, 2, 1))), np.zeros((t, 2, 1)), np.arange(3), 0, (1, 3, 3)
        )
        for t in lengths
    ]
    assert column_groups(cols) == [18, 6, 12]  # 100 90 51 | 40 | 8 8: cut below half the first


def test_bad_blocks_are_one_line_errors(nets: list[sp.csr_matrix]) -> None:
    w_in = np.ones((1, N))
    with pytest.raises(UsageError, match="w_in must be"):
        run_blocks(nets, ALPHAS, UNITS, [Block(np.ones((1, 3)), np.zeros((5, 1, 1)))])
    with pytest.raises(UsageError, match="inputs must be"):
        run_blocks(nets, ALPHAS, UNITS, [Block(w_in, np.zeros((5, 1)))])
    with pytest.raises(UsageError, match="record must be"):
        run_blocks(nets, ALPHAS, UNITS, [Block(w_in, np.zeros((5, 1, 1)), np.array([N]))])
    with pytest.raises(UsageError, match="closed-loop block needs coef"):
        run_blocks(nets, ALPHAS, UNITS, [Block(w_in, np.zeros((5, 1, 1)), free=3)])
    with pytest.raises(UsageError, match="sparse product must be"):
        run_blocks(nets, ALPHAS, UNITS, [Block(w_in, np.zeros((5, 1, 1)))], product="cuda")


def test_lif_blocks_run_open_loop_only(nets: list[sp.csr_matrix]) -> None:
    u = np.random.default_rng(3).uniform(0, 2, (20, 2, 1))
    (run,) = run_blocks(nets, [1.0], LIFUnits(), [Block(np.ones((1, N)), u, np.arange(4))])
    assert run.states.shape == (20, 2, 1, 2, 4) and np.all(run.states >= 0)
    with pytest.raises(UsageError, match="rate units"):
        run_blocks(nets, [1.0], LIFUnits(), [_closed(np.random.default_rng(4))])
