"""The reservoir engine: every task's input blocks at every gain of every network, one product
per step.

A study runs several tasks (each with its own input sequences, channels and length) at every
gain of the same networks. `run_blocks` advances all of them together: each `Block` contributes
``B * G`` state columns (its B sequences at the G gains), and every step is ONE sparse-times-dense
product over all active columns::

    Z = Wt @ X          Wt: (M*N, M*N) block-diagonal of the W_m.T;  X: (M*N, C) states
    x_c(t+1) = (1 - a) x_c(t) + a f(alpha_c Z_c + s_in d_c(t+1) + b)       per column c

with ``d_c = sum_k W_in[k] u_k`` the drive of the column's own block (its ``(K, N)`` input
weights, `units.esn_step`'s update otherwise). Blocks are ordered by length (longest first), so
the active columns are always a prefix; when a block ends its final state is kept and the state
matrix shrinks by whole chunks; a chunk never mixes a block with one shorter than half its
first block's length (`blocks.column_groups`), so short blocks are not stepped beside idle long
ones. A block may continue in closed loop for ``free`` steps: its input is then its
own readout ``y = x[record] @ coef + intercept`` (per network, gain and sequence), as in
free-running prediction.

The columns are kept in chunks (`products.ChunkedProduct`: the product and the elementwise
update chunk by chunk, implemented by scipy, torch or MKL with numpy's update as ``product``
says; `blocks`: the blocks and where their columns sit, `blocks.Recorder` their recorded states
written straight into each block's public layout; the input drive and bias of a block are
computed for several steps at once). Every operation is per column, the readout is summed over
the recorded neurons row by row, and a column's product sums do not depend on the other columns
(scipy's CSR kernel, MKL's in float64 at any width and in float32 at its fixed width), so a
block gives bit-identical states alone or batched with others, and in float64 the same states
with either product (`tests/reservoir/test_engine.py`). LIF units run each block through
`dynamics.Reservoir`'s reference loop.

`run_blocks` in steps (`_Study`): check every block (`check_block`) and lay out its columns;
then, a few steps at a time, precompute the drive (`_fill_drive`), and per step retire the
blocks that ended, advance the live chunks (`_step`: product, gain, drive or closed-loop
feedback, activation, leak), check for divergence, record and read out (`_after_step`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.errors import UsageError
from wirelab.reservoir.blocks import (
    Block,
    BlockColumns,
    BlockRun,
    Recorder,
    column_groups,
)
from wirelab.reservoir.dynamics import (
    Reservoir,
    divergence_error,
    gain_vector,
    state_dtype,
    transposed_block_diagonal,
    weight_matrices,
)
from wirelab.reservoir.products import ChunkedProduct
from wirelab.reservoir.units import LIFUnits, Units

__all__ = ["Block", "BlockRun", "check_block", "run_blocks"]

DRIVE_BYTES = 32 * 2**20  # the precomputed drive of all chunks stays under this
SPAN = 4  # steps of drive precomputed at once (more: the buffers leave the cache)


def check_block(
    block: Block, networks: int, gains: int, neurons: int
) -> tuple[np.ndarray, np.ndarray]:
    """A one-line `UsageError` for a block that does not fit M networks x G gains of N neurons;
    else its inputs ``(T, B, K)`` as float64 and its recorded neurons (default all)."""
    m, g, n = networks, gains, neurons
    w_in = np.asarray(block.w_in, dtype=np.float64)
    if w_in.ndim != 2 or w_in.shape[1] != n:
        raise UsageError(f"a block's w_in must be (K, N={n}), got {w_in.shape}")
    u = np.asarray(block.inputs, dtype=np.float64)
    if u.ndim != 3 or u.shape[2] != w_in.shape[0]:
        raise UsageError(f"a block's inputs must be (T, B, K={w_in.shape[0]}), got {u.shape}")
    b = u.shape[1]
    rec = np.arange(n) if block.record is None else np.asarray(block.record, dtype=np.int64)
    if rec.ndim != 1 or rec.size == 0 or rec.min() < 0 or rec.max() >= n:
        raise UsageError(f"a block's record must be non-empty indices in [0, {n})")
    if not 0 <= block.washout <= u.shape[0] or block.free < 0:
        raise UsageError("a block needs 0 <= washout <= T and free >= 0")
    if block.state0 is not None and np.shape(block.state0) != (m, g, b, n):
        raise UsageError(f"a block's state0 must be (M, G, B, N)={(m, g, b, n)}")
    if block.coef is not None or block.free:
        k, p = w_in.shape[0], rec.size
        shapes = (np.shape(np.asarray(block.coef)), np.shape(np.asarray(block.intercept)))
        if shapes != ((m, g, b, p, k), (m, g, b, k)):
            raise UsageError(f"a closed-loop block needs coef {(m, g, b, p, k)} and intercept")
    if u.shape[0] == 0 and block.state0 is None and block.free:
        raise UsageError("a closed-loop block without teacher-forced steps needs state0")
    return u, rec


def run_blocks(
    weights: sp.spmatrix | Sequence[sp.spmatrix],
    alphas: Sequence[float] | np.ndarray,
    units: Units | LIFUnits,
    blocks: Sequence[Block],
    *,
    dtype: Any = np.float32,
    product: str = "auto",
    settings: Mapping[str, Any] | None = None,
    check_every: int = 25,
) -> list[BlockRun]:
    """Advance every block at every gain of every network; one `BlockRun` per block, in order.

    ``weights``: M normalised ``(N, N)`` ``[pre, post]`` matrices; ``alphas``: the G gains;
    ``product``: the sparse product's implementation (`products.PRODUCTS`: ``auto``, ``scipy``,
    ``torch``, ``mkl``); ``settings``: extra key/values named in a `DivergenceError`.
    """
    mats = weight_matrices(weights)
    gains = gain_vector(alphas)
    if isinstance(units, LIFUnits):
        return [_run_lif(mats, gains, units, blk, settings) for blk in blocks]
    study = _Study(mats, gains, units, blocks, state_dtype(dtype), product, settings)
    return study.run(check_every)


class _Study:
    """The state of one `run_blocks` call: every block's columns in chunks, stepped together.

    Blocks are ordered longest first, so the blocks still running are always a prefix
    (``active``) and so are the chunks holding them (``live``).
    """

    def __init__(
        self,
        mats: list[sp.csr_matrix],
        alphas: np.ndarray,
        units: Units,
        blocks: Sequence[Block],
        dtype: np.dtype[Any],
        product: str,
        settings: Mapping[str, Any] | None,
    ) -> None:
        self.alphas, self.units, self.dtype = alphas, units, dtype
        self.settings = dict(settings or {})
        self.networks, self.neurons, self.gains = len(mats), mats[0].shape[0], alphas.size
        shape = (self.networks, self.neurons, self.gains)
        checked = [check_block(blk, self.networks, self.gains, self.neurons) for blk in blocks]
        self.order = sorted(range(len(blocks)), key=lambda i: -blocks[i].length)
        self.cols: list[BlockColumns] = []
        offset = 0
        for i in self.order:
            self.cols.append(BlockColumns(blocks[i], *checked[i], offset, shape))
            offset += self.cols[-1].width
        self.product = ChunkedProduct(transposed_block_diagonal(mats, dtype), product)
        self.widths = self.product.chunks(column_groups(self.cols))
        self.edges = np.cumsum([0, *self.widths])
        for c in self.cols:
            c.place(self.widths)
        self._init_state()
        self._init_loop()

    def _init_state(self) -> None:
        """The state chunks (zero, or a block's ``state0``), their gains and the input weights,
        bias and scaling in the state precision."""
        rows, dt = self.networks * self.neurons, self.dtype
        self.x = [np.zeros((rows, w), dtype=dt) for w in self.widths]
        self.z = [np.empty_like(a) for a in self.x]
        column_gain = np.zeros(self.edges[-1], dtype=dt)  # padding columns: gain 0
        for c in self.cols:
            column_gain[c.offset : c.offset + c.width] = np.tile(self.alphas, c.sequences)
            if c.block.state0 is not None:
                c.put(self.x, c.block.state0)
        unit = bool(np.all(self.alphas == 1.0))
        self.chunk_gain = [
            None if unit else column_gain[a:b] for a, b in itertools.pairwise(self.edges)
        ]
        self.w_in = [np.asarray(c.block.w_in, dtype=dt) for c in self.cols]
        bias = np.asarray(getattr(self.units, "bias", 0.0), dtype=dt)
        self.bias = np.broadcast_to(bias, (self.neurons,)).copy()
        self.scaling = dt.type(self.units.input_scaling)

    def _init_loop(self) -> None:
        """The recorder, the closed-loop outputs and feedback, the final states, the steps at
        which blocks end, and the drive buffers."""
        self.recorder = Recorder(self.cols, self.dtype)
        self.outputs = [
            np.empty((c.block.free + 1, self.networks, self.gains, c.sequences, c.inputs.shape[2]))
            for c in self.cols
        ]
        self.finals: list[np.ndarray | None] = [
            c.public(self.x) if c.length == 0 else None for c in self.cols
        ]
        self.feed: list[np.ndarray | None] = [None] * len(self.cols)  # readouts, (M, G, B, K)
        self.closed = [j for j, c in enumerate(self.cols) if c.closed]
        for j in self.closed:
            if self.cols[j].open_steps == 0:
                self.outputs[j][0] = self.feed[j] = self.cols[j].readout(self.x)
        self.ends: dict[int, list[int]] = {}
        for j, c in enumerate(self.cols):
            self.ends.setdefault(c.length - 1, []).append(j)
        self.drive: dict[int, np.ndarray] = {}  # reused per chunk, (span, N, width)
        self.active, self.live = len(self.cols), len(self.widths)

    def run(self, check_every: int) -> list[BlockRun]:
        """Every step of the longest block, the drive precomputed a few steps at a time."""
        total = self.cols[0].length if self.cols else 0
        t0 = 0
        with self.product.one_thread(), np.errstate(over="ignore", invalid="ignore"):
            while t0 < total:
                t1 = min(total, t0 + self._span())
                self._fill_drive(t0, t1)
                for t in range(t0, t1):
                    self._step(t, t0)
                    check = (t + 1) % check_every == 0 or t == total - 1
                    if check and not all(np.all(np.isfinite(a)) for a in self.x[: self.live]):
                        raise divergence_error(t, self.units, self.alphas, self.settings)
                    self._after_step(t)
                t0 = t1
        return self._runs()

    def _span(self) -> int:
        """Steps of drive to precompute: up to `SPAN`, the live chunks' drive under
        `DRIVE_BYTES`."""
        per_step = self.live * self.neurons * self.product.width * self.dtype.itemsize
        return max(1, min(SPAN, DRIVE_BYTES // per_step))

    def _fill_drive(self, t0: int, t1: int) -> None:
        """Input drive plus bias of steps ``t0 .. t1`` for every live chunk, each sequence's drive
        spread over its gains (one network: a closed-loop block's drive is written per step)."""
        for chunk in range(self.live):
            buf = self.drive.get(chunk)
            if buf is None or buf.shape[0] < t1 - t0:
                self.drive[chunk] = np.zeros(
                    (t1 - t0, self.neurons, self.widths[chunk]), self.dtype
                )
        for j in range(self.active):
            c = self.cols[j]
            if self.networks == 1 and c.closed and t0 >= c.open_steps:
                continue  # closed loop: the drive is written step by step
            c.fill(self.drive, t0, t1, self.w_in[j], self.scaling, self.bias)

    def _retire(self, t: int) -> None:
        """Drop the blocks that ended before step ``t`` and the chunks they alone held."""
        if self.cols[self.active - 1].length > t:
            return
        while self.active and self.cols[self.active - 1].length <= t:
            self.active -= 1
        last = self.cols[self.active - 1]
        self.live = int(np.searchsorted(self.edges, last.offset + last.width))

    def _step(self, t: int, t0: int) -> None:
        """Step ``t``: product, gain, drive (and closed-loop feedback), activation and leak."""
        self._retire(t)
        fed = [j for j in self.closed if self.cols[j].open_steps <= t < self.cols[j].length]
        feedback = [
            self.cols[j].feedback(np.asarray(self.feed[j]), self.w_in[j], self.scaling) for j in fed
        ]
        if self.networks == 1:  # one network: the feedback joins the drive (one fused pass)
            for j, fb in zip(fed, feedback, strict=True):
                for seg in self.cols[j].segments:
                    out = self.drive[seg.chunk][t - t0][:, seg.lane_lo : seg.lane_hi]
                    np.add(fb[0, :, seg.local_lo : seg.local_hi], self.bias[:, None], out=out)
        for chunk in range(self.live):
            drive = self.drive[chunk][t - t0]
            self.product.step(
                self.x[chunk], self.z[chunk], self.chunk_gain[chunk], drive, self.networks
            )
        if self.networks > 1:
            for j, fb in zip(fed, feedback, strict=True):
                for seg in self.cols[j].segments:
                    z = self.z[seg.chunk].reshape(self.networks, self.neurons, -1)
                    z[:, :, seg.lane_lo : seg.lane_hi] += fb[:, :, seg.local_lo : seg.local_hi]
        for chunk in range(self.live):
            self.product.activate(
                self.z[chunk], self.x[chunk], self.units.activation, self.units.leak
            )
        live = self.live
        self.x[:live], self.z[:live] = self.z[:live], self.x[:live]

    def _after_step(self, t: int) -> None:
        """Record step ``t``, read out the closed-loop blocks, keep the final states of the
        blocks that end here."""
        self.recorder.record(t, self.x, self.active)
        for j in self.closed:
            c = self.cols[j]
            if c.open_steps <= t + 1 <= c.length:
                self.outputs[j][t + 1 - c.open_steps] = self.feed[j] = c.readout(self.x)
        for j in self.ends.get(t, ()):
            self.finals[j] = self.cols[j].public(self.x)

    def _runs(self) -> list[BlockRun]:
        """One `BlockRun` per block, in the caller's order."""
        runs: list[BlockRun | None] = [None] * len(self.cols)
        for j, c in enumerate(self.cols):
            out = self.outputs[j] if c.closed else self.outputs[j][:0]
            runs[self.order[j]] = BlockRun(self.recorder.states(j), np.asarray(self.finals[j]), out)
        return [r for r in runs if r is not None]


def _run_lif(
    mats: list[sp.csr_matrix],
    alphas: np.ndarray,
    units: LIFUnits,
    block: Block,
    settings: Mapping[str, Any] | None,
) -> BlockRun:
    """LIF units: the block alone through `Reservoir`'s reference loop (open loop only)."""
    if block.free or block.coef is not None:
        raise UsageError("closed-loop (free-running) blocks need rate units, not LIF")
    u = np.asarray(block.inputs, dtype=np.float64)
    res = Reservoir(
        mats, block.w_in, alphas=alphas, units=units, batch=u.shape[1], settings=settings
    )
    run = res.run(u, record=block.record, washout=block.washout)
    final = run.final.rate if hasattr(run.final, "rate") else run.final
    return BlockRun(run.states, final, np.zeros((0, res.m, res.g, res.b, res.k)))
