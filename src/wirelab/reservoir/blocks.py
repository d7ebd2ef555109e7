"""Blocks of input sequences (`Block`), their runs (`BlockRun`), and where each block's state
columns sit in the chunks of `engine.run_blocks` and what they record.

A `Block` is what a task asks the engine to run: B input sequences on its own K channels, run
at every gain of every network, perhaps continued in closed loop. The engine keeps the state of
every block as columns of a few C-contiguous chunks, each ``(M*N, width)``
(`products.ChunkedProduct.chunks`). A block of B sequences run at G gains owns ``B * G``
consecutive columns from its ``offset``, local column ``j = b * G + g``; the chunk boundaries
cut them into `Segment` s. `BlockColumns` reads and writes a block's state through its segments
(public layout ``(M, G, B, N)``), computes its input drive and, for a closed-loop block, its
readout and the feedback of that readout. `Recorder` writes the recorded neurons' states of every
step straight into each block's public layout ``(T - washout, M, G, B, P)``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

try:  # numba fuses the drive and its spread over the gains (`fill_lanes`); numpy otherwise
    from numba import njit
except ImportError:  # pragma: no cover
    njit = None


@dataclass
class Block:
    """B input sequences on the block's own K channels, run at every gain of every network.

    ``inputs`` ``(T, B, K)`` are the teacher-forced steps (T may be 0 with a ``state0``);
    ``record`` the neurons whose states are kept for ``t >= washout``; ``state0`` an initial
    public state ``(M, G, B, N)``; ``free`` closed-loop steps after the teacher-forced ones, fed
    by the readout ``coef`` ``(M, G, B, P, K)`` of the recorded neurons plus ``intercept``
    ``(M, G, B, K)``.
    """

    w_in: np.ndarray
    inputs: np.ndarray
    record: np.ndarray | None = None
    washout: int = 0
    state0: np.ndarray | None = None
    free: int = 0
    coef: np.ndarray | None = None
    intercept: np.ndarray | None = None

    @property
    def length(self) -> int:
        return int(self.inputs.shape[0]) + self.free


@dataclass
class BlockRun:
    """``states`` ``(T - washout, M, G, B, P)``; ``final`` ``(M, G, B, N)``; ``outputs``
    ``(free + 1, M, G, B, K)``: the readout after the teacher-forced steps and after each
    closed-loop step (empty without ``coef``)."""

    states: np.ndarray
    final: np.ndarray
    outputs: np.ndarray


class Segment(NamedTuple):
    """The part of a block's columns in one chunk: the chunk's lanes ``[lane_lo, lane_hi)``
    hold the block's local columns ``[local_lo, local_hi)``."""

    chunk: int
    lane_lo: int
    lane_hi: int
    local_lo: int
    local_hi: int


class BlockColumns:
    """One block's ``B * G`` columns (local column ``j = b * G + g``) in the state chunks.

    ``inputs`` ``(T, B, K)`` and ``record`` (the recorded neurons) are the block's, checked;
    ``shape`` is ``(M, N, G)``.
    """

    def __init__(
        self,
        block: Block,
        inputs: np.ndarray,
        record: np.ndarray,
        offset: int,
        shape: tuple[int, int, int],
    ) -> None:
        self.block, self.inputs, self.record, self.offset = block, inputs, record, offset
        self.networks, self.neurons, self.gains = shape
        self.sequences = inputs.shape[1]
        self.width = self.sequences * self.gains
        self.open_steps = inputs.shape[0]  # teacher-forced steps; closed-loop ones follow
        self.length = self.open_steps + block.free
        self.closed = block.coef is not None
        if self.closed:
            assert block.coef is not None and block.intercept is not None
            self.coef_t = np.ascontiguousarray(np.swapaxes(block.coef, -1, -2))  # (M,G,B,K,P)
            self.intercept = np.asarray(block.intercept, dtype=np.float64)
        self.segments: list[Segment] = []
        self._typed: dict[Any, np.ndarray] = {}  # the inputs in a state dtype (`fill`)

    def place(self, widths: list[int]) -> None:
        """Cut the block's columns into `Segment` s of the chunks of ``widths``."""
        start = 0
        for chunk, width in enumerate(widths):
            lo, hi = max(self.offset, start), min(self.offset + self.width, start + width)
            if lo < hi:
                self.segments.append(
                    Segment(chunk, lo - start, hi - start, lo - self.offset, hi - self.offset)
                )
            start += width

    def _view(self, chunk: np.ndarray) -> np.ndarray:
        return chunk.reshape(self.networks, self.neurons, -1)

    def get(self, chunks: list[np.ndarray], rows: np.ndarray | None = None) -> np.ndarray:
        """The block's states ``(M, R, B*G)`` (``rows``: neurons, default all)."""
        out = []
        for seg in self.segments:
            v = self._view(chunks[seg.chunk])[:, :, seg.lane_lo : seg.lane_hi]
            out.append(v if rows is None else v[:, rows])
        return np.concatenate(out, axis=2)

    def put(self, chunks: list[np.ndarray], state: np.ndarray) -> None:
        """Write a public state ``(M, G, B, N)`` into the block's columns."""
        local = np.asarray(state).transpose(0, 3, 2, 1)
        local = local.reshape(self.networks, self.neurons, self.width)
        for seg in self.segments:
            lanes = slice(seg.lane_lo, seg.lane_hi)
            self._view(chunks[seg.chunk])[:, :, lanes] = local[:, :, seg.local_lo : seg.local_hi]

    def public(self, chunks: list[np.ndarray]) -> np.ndarray:
        """The block's state as ``(M, G, B, N)``."""
        x = self.get(chunks).reshape(self.networks, self.neurons, self.sequences, self.gains)
        return x.transpose(0, 3, 2, 1).copy()

    def readout(self, chunks: list[np.ndarray]) -> np.ndarray:
        """``x[record] @ coef + intercept`` per network, gain and sequence: ``(M, G, B, K)``,
        summed over the recorded neurons row by row (the same sums alone or batched)."""
        shape = (self.networks, self.record.size, self.sequences, self.gains)
        xs = self.get(chunks, self.record).reshape(shape)
        xs = np.ascontiguousarray(xs.transpose(0, 3, 2, 1), dtype=np.float64)  # (M, G, B, P)
        return (xs[:, :, :, None, :] * self.coef_t).sum(axis=-1) + self.intercept

    def drive(
        self, t0: int, t1: int, w_in: np.ndarray, scaling: Any, bias: np.ndarray
    ) -> np.ndarray:
        """Open-loop drive plus bias ``(t1 - t0, N, B)``: ``scaling * sum_k W_in[k] u_k(t) + b``;
        bias only at closed-loop steps (their feedback is added step by step)."""
        out = np.zeros((t1 - t0, self.neurons, self.sequences), dtype=w_in.dtype)
        hi = min(t1, self.open_steps)
        if t0 < hi:
            u = self.inputs[t0:hi].astype(w_in.dtype)  # (T, B, K)
            part = w_in[0][None, :, None] * u[:, None, :, 0]
            for channel in range(1, u.shape[2]):
                part += w_in[channel][None, :, None] * u[:, None, :, channel]
            out[: hi - t0] = part * scaling
        out += bias[None, :, None]
        return out

    def fill(
        self,
        chunks: dict[int, np.ndarray],
        t0: int,
        t1: int,
        w_in: np.ndarray,
        scaling: Any,
        bias: np.ndarray,
        fast: bool = True,
    ) -> None:
        """Write the drive plus bias of steps ``t0 .. t1`` into the block's lanes of the drive
        ``chunks`` (each ``(span, N, width)``): `FILL` when numba imports and ``fast``, else
        the reference `drive` and `spread` (bit for bit the same, tested)."""
        if FILL is None or not fast:
            d = self.drive(t0, t1, w_in, scaling, bias)  # (T, N, B)
            for seg in self.segments:
                dst = chunks[seg.chunk][: t1 - t0, :, seg.lane_lo : seg.lane_hi]
                spread(dst, d, seg.local_lo, seg.local_hi, self.gains)
            return
        u = self._typed.get(w_in.dtype)
        if u is None:
            u = self._typed[w_in.dtype] = np.ascontiguousarray(self.inputs, dtype=w_in.dtype)
        for seg in self.segments:
            dst = chunks[seg.chunk][: t1 - t0, :, seg.lane_lo : seg.lane_hi]
            FILL(dst, u, w_in, scaling, bias, t0, self.open_steps, seg.local_lo, self.gains)

    def feedback(self, y: np.ndarray, w_in: np.ndarray, scaling: Any) -> np.ndarray:
        """Closed-loop drive ``(M, N, B*G)`` of the readouts ``y`` ``(M, G, B, K)``."""
        yt = y.astype(w_in.dtype).transpose(0, 2, 1, 3)
        yt = yt.reshape(self.networks, 1, self.width, -1)
        out = w_in[0][None, :, None] * yt[..., 0]  # (M, N, B*G)
        for channel in range(1, yt.shape[-1]):
            out += w_in[channel][None, :, None] * yt[..., channel]
        out *= scaling
        return out


def fill_lanes(
    dst: np.ndarray,
    u: np.ndarray,
    w_in: np.ndarray,
    scaling: Any,
    bias: np.ndarray,
    t0: int,
    hi: int,
    local_lo: int,
    gains: int,
) -> None:
    """The drive of `BlockColumns.drive` spread over the gains (`spread`) in one pass:
    ``dst[t, n, l] = scaling * sum_k W_in[k, n] u[t0 + t, j // G, k] + b[n]`` for the local
    column ``j = local_lo + l`` (``b[n]`` alone from step ``hi``, the closed-loop steps), the
    same operations in the same order as the numpy reference. ``dst`` ``(T, N, L)``, ``u``
    ``(T_open, B, K)`` in ``w_in``'s dtype."""
    span, rows, lanes = dst.shape
    for t in range(span):
        if t0 + t >= hi:
            for n in range(rows):
                for lane in range(lanes):
                    dst[t, n, lane] = 0.0 + bias[n]
            continue
        for n in range(rows):
            seq, g = local_lo // gains, local_lo % gains
            value = bias[n]  # typed; set at lane 0
            for lane in range(lanes):
                if lane == 0 or g == 0:  # a new sequence: its drive, once for its G lanes
                    acc = w_in[0, n] * u[t0 + t, seq, 0]
                    for k in range(1, w_in.shape[0]):
                        acc += w_in[k, n] * u[t0 + t, seq, k]
                    value = acc * scaling + bias[n]
                dst[t, n, lane] = value
                g += 1
                if g == gains:
                    seq, g = seq + 1, 0


FILL = None if njit is None else njit(cache=True, nogil=True)(fill_lanes)

GROUP_CUT = 0.5  # a block shorter than this fraction of its group's first block starts a group


def column_groups(blocks: list[BlockColumns], cut: float = GROUP_CUT) -> list[int]:
    """Column counts of consecutive blocks (longest first) that may share chunks: a block
    shorter than ``cut`` times the first block of the current group starts a new group. A chunk
    is stepped until its longest block ends, so a short block's columns beside a long block's
    would be stepped idle (one larval network at one gain: 4 columns of 3,500 steps would
    otherwise share a 16-column chunk with 12 columns of 50 and 20 steps)."""
    groups: list[int] = []
    first = -1
    for c in blocks:
        if not groups or c.length < cut * first:
            groups.append(0)
            first = c.length
        groups[-1] += c.width
    return groups


def spread(dst: np.ndarray, drive: np.ndarray, lo: int, hi: int, gains: int) -> None:
    """``dst[..., j - lo] = drive[..., j // gains]`` for local columns ``j`` in ``[lo, hi)`` (each
    sequence's drive repeated over its G gains), by broadcasting whole runs of a sequence."""
    j = lo
    while j < hi:
        seq = j // gains
        stop = min(hi, (seq + 1) * gains)
        if stop - j == gains and (hi - j) // gains > 1:  # several whole sequences at once
            count = (hi - j) // gains
            view = dst[..., j - lo : j - lo + count * gains]
            view.shape = (*view.shape[:-1], count, gains)  # raises rather than copy
            view[...] = drive[..., seq : seq + count, None]
            j += count * gains
        else:
            dst[..., j - lo : stop - lo] = drive[..., seq : seq + 1]
            j = stop


class Recorder:
    """Each block's recorded states, written step by step straight into its public layout
    ``(T - washout, M, G, B, P)`` (the array `states` returns, no copy at the end).

    Per step and segment the recorded rows of the chunk, ``(M, P, lanes)``, are copied
    transposed into the block's columns of that step, ``(M, G*B, P)`` (local column
    ``j = b * G + g`` is public column ``g * B + b``). With every neuron recorded (the default
    readout of a study) this is a slice, not a gather; nothing else is kept.
    """

    def __init__(self, blocks: list[BlockColumns], dt: Any) -> None:
        self.blocks = blocks
        self.out: list[np.ndarray] = []
        self.rows: list[np.ndarray | slice] = []
        self.columns: list[np.ndarray | slice] = []  # public column of each local column
        for c in blocks:
            steps = max(c.open_steps - c.block.washout, 0)
            shape = (steps, c.networks, c.gains, c.sequences, c.record.size)
            self.out.append(np.empty(shape, dtype=dt))
            every = c.record.size == c.neurons and np.array_equal(c.record, np.arange(c.neurons))
            self.rows.append(slice(None) if every else c.record)
            local = np.arange(c.width)
            public = (local % c.gains) * c.sequences + local // c.gains
            plain = c.sequences == 1 or c.gains == 1  # the two orders agree
            self.columns.append(slice(None) if plain else public)

    def record(self, t: int, chunks: list[np.ndarray], active: int) -> None:
        """Keep step ``t``'s recorded states of the first ``active`` blocks."""
        for j in range(active):
            c = self.blocks[j]
            if not c.block.washout <= t < c.open_steps:
                continue
            dst = self.out[j][t - c.block.washout]
            dst = dst.reshape(c.networks, c.width, c.record.size)  # (M, G*B, P), a view
            cols, rows = self.columns[j], self.rows[j]
            for seg in c.segments:
                view = chunks[seg.chunk].reshape(c.networks, c.neurons, -1)
                src = view[:, rows, seg.lane_lo : seg.lane_hi].transpose(0, 2, 1)  # (M, L, P)
                if isinstance(cols, slice):
                    dst[:, seg.local_lo : seg.local_hi] = src
                else:
                    dst[:, cols[seg.local_lo : seg.local_hi]] = src

    def states(self, index: int) -> np.ndarray:
        """Block ``index``'s recorded states ``(T - washout, M, G, B, P)``."""
        return self.out[index]
