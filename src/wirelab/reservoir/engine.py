"""Whole studies as one product per step: blocks of columns with their own inputs and lengths.

A study runs several tasks (each with its own input sequences, channels and length) at every
gain of the same networks. `run_blocks` advances all of them together: each `Block` contributes
``B * G`` state columns (its B sequences at the G gains), and every step is ONE sparse-times-dense
product over all active columns::

    Z = Wt @ X          Wt: (M*N, M*N) block-diagonal of the W_m.T;  X: (M*N, C) states
    x_c(t+1) = (1 - a) x_c(t) + a f(alpha_c Z_c + s_in d_c(t+1) + b)       per column c

with ``d_c = sum_k W_in[k] u_k`` the drive of the column's own block (its ``(K, N)`` input
weights, `units.esn_step`'s update otherwise). Blocks are ordered by length (longest first), so
the active columns are always a prefix; when a block ends its final state is kept and the state
matrix shrinks. A block may continue in closed loop for ``free`` steps: its input is then its
own readout ``y = x[record] @ coef + intercept`` (per network, gain and sequence), as in
free-running prediction.

The columns are kept in chunks (`products.ChunkedProduct`: the product and the elementwise
update chunk by chunk; the input drive and bias of a block are computed for several steps at
once). Every operation is per column, the readout is summed over the recorded neurons row by
row, and a column's product sums do not depend on the other columns (scipy's CSR kernel, and
MKL's at its fixed chunk width), so a block gives bit-identical states alone or batched with
others (`tests/reservoir/test_columns.py`). LIF units run each block through
`dynamics.Reservoir`'s reference loop.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.errors import DivergenceError, UsageError
from wirelab.reservoir.dynamics import Reservoir
from wirelab.reservoir.products import ChunkedProduct
from wirelab.reservoir.units import LIFUnits, Units

DRIVE_BYTES = 32 * 2**20  # the precomputed drive of all chunks stays under this
SPAN = 4  # steps of drive precomputed at once (more: the buffers leave the cache)


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


def _check(block: Block, m: int, g: int, n: int) -> tuple[np.ndarray, np.ndarray]:
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


class _Col:
    """One block's columns (local column ``j = b * G + g``) as segments of the state chunks."""

    def __init__(
        self, block: Block, u: np.ndarray, rec: np.ndarray, off: int, shape: tuple[int, int, int]
    ) -> None:
        self.block, self.u, self.rec, self.off = block, u, rec, off
        self.m, self.n, self.g = shape
        self.b = u.shape[1]
        self.width = self.b * self.g
        self.t_open = u.shape[0]
        self.length = self.t_open + block.free
        self.closed = block.coef is not None
        if self.closed:
            assert block.coef is not None and block.intercept is not None
            self.coef_t = np.ascontiguousarray(np.swapaxes(block.coef, -1, -2))  # (M,G,B,K,P)
            self.intercept = np.asarray(block.intercept, dtype=np.float64)
        self.segs: list[tuple[int, int, int, int, int, np.ndarray]] = []

    def place(self, widths: list[int]) -> None:
        """Segments ``(chunk, lane lo, lane hi, local lo, local hi, b of each local column)``."""
        start = 0
        for k, w in enumerate(widths):
            lo, hi = max(self.off, start), min(self.off + self.width, start + w)
            if lo < hi:
                local = np.arange(lo - self.off, hi - self.off)
                self.segs.append(
                    (k, lo - start, hi - start, lo - self.off, hi - self.off, local // self.g)
                )
            start += w

    def get(self, chunks: list[np.ndarray], rows: np.ndarray | None = None) -> np.ndarray:
        """The block's states ``(M, R, B*G)`` (``rows``: neurons, default all)."""
        out = []
        for k, lo, hi, *_ in self.segs:
            v = chunks[k].reshape(self.m, self.n, -1)[:, :, lo:hi]
            out.append(v if rows is None else v[:, rows])
        return np.concatenate(out, axis=2)

    def put(self, chunks: list[np.ndarray], state: np.ndarray) -> None:
        """Write a public state ``(M, G, B, N)`` into the block's columns."""
        local = np.asarray(state).transpose(0, 3, 2, 1).reshape(self.m, self.n, self.width)
        for k, lo, hi, a, e, _ in self.segs:
            chunks[k].reshape(self.m, self.n, -1)[:, :, lo:hi] = local[:, :, a:e]

    def public(self, chunks: list[np.ndarray]) -> np.ndarray:
        """The block's state as ``(M, G, B, N)``."""
        x = self.get(chunks).reshape(self.m, self.n, self.b, self.g)
        return x.transpose(0, 3, 2, 1).copy()

    def readout(self, chunks: list[np.ndarray]) -> np.ndarray:
        """``x[record] @ coef + intercept`` per network, gain and sequence: ``(M, G, B, K)``,
        summed over the recorded neurons row by row (the same sums alone or batched)."""
        xs = self.get(chunks, self.rec).reshape(self.m, self.rec.size, self.b, self.g)
        xs = np.ascontiguousarray(xs.transpose(0, 3, 2, 1), dtype=np.float64)  # (M, G, B, P)
        return (xs[:, :, :, None, :] * self.coef_t).sum(axis=-1) + self.intercept

    def drive(self, t0: int, t1: int, win: np.ndarray, s_in: Any, bias: np.ndarray) -> np.ndarray:
        """Open-loop drive plus bias ``(t1 - t0, N, B)``: ``s_in * sum_k W_in[k] u_k(t) + b``;
        bias only at closed-loop steps (their feedback is added step by step)."""
        d = np.zeros((t1 - t0, self.n, self.b), dtype=win.dtype)
        hi = min(t1, self.t_open)
        if t0 < hi:
            u = self.u[t0:hi].astype(win.dtype)  # (T, B, K)
            part = win[0][None, :, None] * u[:, None, :, 0]
            for ch in range(1, u.shape[2]):
                part += win[ch][None, :, None] * u[:, None, :, ch]
            d[: hi - t0] = part * s_in
        d += bias[None, :, None]
        return d

    def feedback(self, y: np.ndarray, win: np.ndarray, s_in: Any) -> np.ndarray:
        """Closed-loop drive ``(M, N, B*G)`` of the readouts ``y`` ``(M, G, B, K)``."""
        yt = y.astype(win.dtype).transpose(0, 2, 1, 3).reshape(self.m, 1, self.width, -1)
        d = win[0][None, :, None] * yt[..., 0]  # (M, N, B*G)
        for ch in range(1, yt.shape[-1]):
            d += win[ch][None, :, None] * yt[..., ch]
        d *= s_in
        return d


def run_blocks(
    weights: sp.spmatrix | Sequence[sp.spmatrix],
    alphas: Sequence[float] | np.ndarray,
    units: Units | LIFUnits,
    blocks: Sequence[Block],
    *,
    dtype: Any = np.float32,
    backend: str = "auto",
    settings: Mapping[str, Any] | None = None,
    check_every: int = 25,
) -> list[BlockRun]:
    """Advance every block at every gain of every network; one `BlockRun` per block, in order.

    ``weights``: M normalised ``(N, N)`` ``[pre, post]`` matrices; ``alphas``: the G gains.
    """
    mats: list[Any] = [weights] if sp.issparse(weights) else list(weights)
    alphas = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    if isinstance(units, LIFUnits):
        return [_run_lif(mats, alphas, units, blk, settings) for blk in blocks]
    res = Reservoir(
        mats,
        np.zeros((1, mats[0].shape[0])),
        alphas=alphas,
        units=units,
        dtype=dtype,
        settings=settings,
    )  # validation, the block-diagonal matrix, the divergence message
    m, n, g, dt = res.m, res.n, res.g, res.dtype
    checked = [_check(blk, m, g, n) for blk in blocks]
    order = sorted(range(len(blocks)), key=lambda i: -blocks[i].length)  # longest first
    seq: list[_Col] = []
    off = 0
    for i in order:
        seq.append(_Col(blocks[i], *checked[i], off, (m, n, g)))
        off += seq[-1].width
    prod = ChunkedProduct(res._wt, backend)
    widths = prod.chunks(off)
    edges = np.cumsum([0, *widths])
    for c in seq:
        c.place(widths)
    x = [np.zeros((m * n, w), dtype=dt) for w in widths]
    z = [np.empty_like(a) for a in x]
    gain_all = np.zeros(edges[-1], dtype=dt)  # padding columns: gain 0
    for c in seq:
        gain_all[c.off : c.off + c.width] = np.tile(alphas, c.b)
        if c.block.state0 is not None:
            c.put(x, c.block.state0)
    unit = bool(np.all(alphas == 1.0))
    gains = [None if unit else gain_all[a:b] for a, b in itertools.pairwise(edges)]
    win = [np.asarray(c.block.w_in, dtype=dt) for c in seq]
    bias = np.broadcast_to(np.asarray(getattr(units, "bias", 0.0), dtype=dt), (n,)).copy()
    s_in = dt.type(units.input_scaling)
    rec = _Recorder(seq, widths, m, n, dt)
    outputs = [np.empty((c.block.free + 1, m, g, c.b, c.u.shape[2])) for c in seq]
    finals: list[np.ndarray | None] = [c.public(x) if c.length == 0 else None for c in seq]
    feed: list[np.ndarray | None] = [None] * len(seq)  # closed-loop readouts, (M, G, B, K)
    for j, c in enumerate(seq):
        if c.closed and c.t_open == 0:
            outputs[j][0] = feed[j] = c.readout(x)
    total = seq[0].length if seq else 0
    closed = [j for j, c in enumerate(seq) if c.closed]
    ends: dict[int, list[int]] = {}
    for j, c in enumerate(seq):
        ends.setdefault(c.length - 1, []).append(j)
    dbuf: dict[int, np.ndarray] = {}  # reused drive buffers per chunk, (span, N, W)
    active, live, t0 = len(seq), len(widths), 0
    with prod.one_thread(), np.errstate(over="ignore", invalid="ignore"):
        while t0 < total:
            span = max(1, min(SPAN, DRIVE_BYTES // (live * n * prod.width * dt.itemsize)))
            t1 = min(total, t0 + span)
            for k in range(live):
                if k not in dbuf or dbuf[k].shape[0] < t1 - t0:
                    dbuf[k] = np.zeros((t1 - t0, n, widths[k]), dtype=dt)
            for j in range(active):
                if m == 1 and seq[j].closed and t0 >= seq[j].t_open:
                    continue  # closed loop: the drive is written step by step below
                d = seq[j].drive(t0, t1, win[j], s_in, bias)  # (T, N, B)
                for k, lo, hi, a, e, _ in seq[j].segs:
                    _spread(dbuf[k][: t1 - t0, :, lo:hi], d, a, e, g)
            for t in range(t0, t1):
                if seq[active - 1].length <= t:
                    while active and seq[active - 1].length <= t:
                        active -= 1
                    last = seq[active - 1]
                    live = int(np.searchsorted(edges, last.off + last.width))
                fed = [j for j in closed if seq[j].t_open <= t < seq[j].length]
                fbs = [seq[j].feedback(np.asarray(feed[j]), win[j], s_in) for j in fed]
                if m == 1:  # one network: the feedback joins the drive (one fused pass)
                    for j, d3 in zip(fed, fbs, strict=True):
                        for k, lo, hi, a, e, _ in seq[j].segs:
                            np.add(d3[0, :, a:e], bias[:, None], out=dbuf[k][t - t0][:, lo:hi])
                for k in range(live):
                    prod.step(x[k], z[k], gains[k], dbuf[k][t - t0], m)
                if m > 1:
                    for j, d3 in zip(fed, fbs, strict=True):
                        for k, lo, hi, a, e, _ in seq[j].segs:
                            z[k].reshape(m, n, -1)[:, :, lo:hi] += d3[:, :, a:e]
                for k in range(live):
                    prod.activate(z[k], x[k], units.activation, units.leak)
                x[:live], z[:live] = z[:live], x[:live]
                check = (t + 1) % check_every == 0 or t == total - 1
                if check and not all(np.all(np.isfinite(a)) for a in x[:live]):
                    raise _diverged(res, t)
                rec.record(t, x, live)
                for j in closed:
                    c = seq[j]
                    if c.t_open <= t + 1 <= c.length:
                        outputs[j][t + 1 - c.t_open] = feed[j] = c.readout(x)
                for j in ends.get(t, ()):
                    finals[j] = seq[j].public(x)
            t0 = t1
    runs: list[BlockRun | None] = [None] * len(seq)
    for j, c in enumerate(seq):
        out = outputs[j] if c.closed else outputs[j][:0]
        runs[order[j]] = BlockRun(rec.states(j), np.asarray(finals[j]), out)
    return [r for r in runs if r is not None]


def _spread(dst: np.ndarray, d: np.ndarray, a: int, e: int, g: int) -> None:
    """``dst[..., j - a] = d[..., (j // g)]`` for local columns ``j`` in ``[a, e)`` (each
    sequence's drive repeated over its G gains), by broadcasting whole runs of a sequence."""
    j = a
    while j < e:
        b = j // g
        stop = min(e, (b + 1) * g)
        if stop - j == g and (e - j) // g > 1:  # several whole sequences at once
            nb = (e - j) // g
            view = dst[..., j - a : j - a + nb * g]
            view.shape = (*view.shape[:-1], nb, g)  # raises rather than copy
            view[...] = d[..., b : b + nb, None]
            j += nb * g
        else:
            dst[..., j - a : stop - a] = d[..., b : b + 1]
            j = stop


class _Recorder:
    """Recorded states per chunk (one row gather per chunk and step), split into blocks at the
    end: chunk k keeps the union of its blocks' recorded rows over the union of their windows."""

    def __init__(self, seq: list[_Col], widths: list[int], m: int, n: int, dt: Any) -> None:
        self.seq, self.m, self.g = seq, m, seq[0].g if seq else 1
        self.rows: list[np.ndarray] = []
        self.window: list[tuple[int, int]] = []
        self.buf: list[np.ndarray] = []
        for k, w in enumerate(widths):
            mine = [c for c in seq if c.t_open > c.block.washout and any(s[0] == k for s in c.segs)]
            rows = (
                np.unique(
                    np.concatenate(
                        [(np.arange(m)[:, None] * n + c.rec[None, :]).ravel() for c in mine]
                    )
                )
                if mine
                else np.zeros(0, dtype=np.int64)
            )
            lo = min((c.block.washout for c in mine), default=0)
            hi = max((c.t_open for c in mine), default=0)
            self.rows.append(rows)
            self.window.append((lo, hi))
            self.buf.append(np.empty((hi - lo, rows.size, w), dtype=dt))

    def record(self, t: int, x: list[np.ndarray], live: int) -> None:
        for k in range(live):
            lo, hi = self.window[k]
            if lo <= t < hi:
                np.take(x[k], self.rows[k], axis=0, out=self.buf[k][t - lo])

    def states(self, j: int) -> np.ndarray:
        """Block ``j``'s recorded states ``(T - washout, M, G, B, P)``."""
        c = self.seq[j]
        p = c.rec.size
        out = np.empty((c.t_open - c.block.washout, self.m, p, c.width), dtype=self.buf[0].dtype)
        for k, lo, hi, a, e, _ in c.segs if out.shape[0] else ():
            rows = (np.arange(self.m)[:, None] * c.n + c.rec[None, :]).ravel()
            pos = np.searchsorted(self.rows[k], rows)
            start = self.window[k][0]
            part = self.buf[k][c.block.washout - start : c.t_open - start][:, pos, lo:hi]
            out[..., a:e] = part.reshape(-1, self.m, p, e - a)
        return out.reshape(-1, self.m, p, c.b, self.g).transpose(0, 1, 4, 3, 2)


def _diverged(res: Reservoir, step: int) -> DivergenceError:
    settings = {**asdict(res.units), "alphas": [float(a) for a in res.alphas], **res.settings}
    text = ", ".join(f"{k}={v}" for k, v in settings.items())
    return DivergenceError(f"reservoir diverged (NaN/inf) at step {step}; {text}")


def _run_lif(
    mats: list[Any],
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
