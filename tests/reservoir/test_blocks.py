"""`blocks.BlockColumns.fill`: the fused drive (numba, `blocks.FILL`) against its readable
reference (`BlockColumns.drive` then `blocks.spread`), bit for bit, for any dtype, channel
count, gain count, chunk cut and span (open-loop steps, closed-loop steps and both)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.reservoir.blocks import FILL, Block, BlockColumns

pytestmark = pytest.mark.skipif(FILL is None, reason="numba not installed")


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float32, np.float64]),
    k=st.integers(1, 3),
    b=st.integers(1, 5),
    g=st.integers(1, 4),
    width=st.integers(1, 9),
    steps=st.integers(1, 12),
    free=st.integers(0, 6),
    span=st.integers(1, 5),
)
def test_fused_drive_equals_the_reference(
    seed: int, dtype: Any, k: int, b: int, g: int, width: int, steps: int, free: int, span: int
) -> None:
    rng = np.random.default_rng(seed)
    n, m, offset = 7, 1, int(rng.integers(0, 5))
    blk = Block(rng.uniform(-1, 1, (k, n)), rng.uniform(-1, 1, (steps, b, k)), free=free)
    cols = BlockColumns(blk, blk.inputs, np.arange(n), offset, (m, n, g))
    widths = [width] * (-(-(offset + cols.width) // width))
    cols.place(widths)
    w_in = np.asarray(blk.w_in, dtype=dtype)
    scaling: Any = np.dtype(dtype).type(0.3)
    bias: np.ndarray = rng.uniform(-0.2, 0.2, n).astype(dtype)
    for t0 in range(0, cols.length, span):
        t1 = min(cols.length, t0 + span)
        fast = {c: np.full((span, n, w), np.nan, dtype) for c, w in enumerate(widths)}
        ref = {c: np.full((span, n, w), np.nan, dtype) for c, w in enumerate(widths)}
        cols.fill(fast, t0, t1, w_in, scaling, bias)
        cols.fill(ref, t0, t1, w_in, scaling, bias, fast=False)
        for c in fast:
            np.testing.assert_array_equal(fast[c], ref[c])
