"""Fused CSR kernels for the batched leaky rate update (fast path of `reservoir.dynamics`).

Layout (internal, chosen so that one sparse-times-dense product advances everything):

- ``wt``: CSR ``(R, R)`` with ``R = M * N``: the block-diagonal of the M transposed matrices
  ``W_m.T`` (rows post, columns pre), so row ``j`` of block ``m`` lists the presynaptic inputs of
  postsynaptic neuron ``j``; ``uint32`` column indices, ``int64`` row pointers;
- ``x``: ``(R, C)`` with ``C = G * B`` (passed flat, ``(R * C,)``): column ``g * B + b`` is gain
  ``g``, input sequence ``b``;
- ``u``: ``(T, B, K)`` inputs; ``win_t``: ``(N, K)`` input weights ``W_in.T``.

One step, for row ``r = m * N + j`` and column ``c = g * B + b``::

    d[j, c]  = s_in * sum_k win_t[j, k] u[t, b, k] + bias[j]                 (once per step)
    z[r, c]  = gain[c] * sum_p wt[r, p] x[p, c] + d[j, c]
    x'[r, c] = (1 - leak) x[r, c] + leak f(z[r, c])

with ``f`` = tanh (code 0: the rational approximation of Eigen's float32 ``ptanh``, max error
3e-7, which vectorises unlike libm's; code 3: libm ``tanh``, used for float64), identity (1) or
the logistic sigmoid (2). Columns never interact, so with several columns each core runs the
whole time loop on its own column range (no synchronisation per step; a per-step barrier was
measured 10x slower than serial on the shared 2-core machine). A single column runs on one core.
Index arithmetic is unsigned so that numba skips negative-index wraparound and the column loops
vectorise. The reference implementation is `wirelab.reservoir.dynamics.esn_step` (scipy);
``tests/reservoir`` checks they agree. numba is optional: without it `available()` is False.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

try:  # numba is optional (it ships with the fly extra via flygym)
    import numba as _nb

    _HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only without numba
    _nb = None
    _HAVE_NUMBA = False

ACTIVATIONS = {"tanh": 0, "linear": 1, "sigmoid": 2, "tanh_exact": 3}


def available() -> bool:
    return _HAVE_NUMBA


def threads() -> int:
    return int(_nb.get_num_threads()) if _HAVE_NUMBA else 1


def _tanh(x: float) -> float:
    """Rational tanh approximation (Eigen's float32 ``ptanh``); |error| < 3e-7."""
    x = min(max(x, -7.90531110763549805), 7.90531110763549805)
    x2 = x * x
    p = x2 * -2.76076847742355e-16 + 2.00018790482477e-13
    p = p * x2 + -8.60467152213735e-11
    p = p * x2 + 5.12229709037114e-08
    p = p * x2 + 1.48572235717979e-05
    p = p * x2 + 6.37261928875436e-04
    p = p * x2 + 4.89352455891786e-03
    q = x2 * 1.19825839466702e-06 + 1.18534705686654e-04
    q = q * x2 + 2.26843463243900e-03
    q = q * x2 + 4.89352518554385e-03
    return x * p / q


def _drive(ut: Any, win_t: Any, bias: Any, s_in: float, c0: int, c1: int, dr: Any) -> None:
    """``dr[j, c - c0] = s_in * sum_k win_t[j, k] ut[c % B, k] + bias[j]``."""
    b_count = ut.shape[0]
    for j in range(win_t.shape[0]):
        for c in range(c0, c1):
            b = c % b_count
            d = 0.0
            for k in range(ut.shape[1]):
                d += win_t[j, k] * ut[b, k]
            dr[j, c - c0] = s_in * d + bias[j]


def _rows(
    indptr: Any,
    indices: Any,
    data: Any,
    x: Any,
    y: Any,
    cols: int,
    dr: Any,
    gain: Any,
    leak: float,
    act: int,
    n: int,
    r0: int,
    r1: int,
    c0: int,
    c1: int,
    acc: Any,
) -> None:
    """Rows ``[r0, r1)``, columns ``[c0, c1)`` of one step; ``x``, ``y`` flat ``(R * C,)``."""
    ucols = np.uint64(cols)
    uc0 = np.uint64(c0)
    uw = np.uint64(c1 - c0)
    keep = 1.0 - leak
    for r in range(r0, r1):
        j = r % n
        if uw == 1:
            s = 0.0
            for p in range(indptr[r], indptr[r + 1]):
                s += data[p] * x[np.uint64(indices[p]) * ucols + uc0]
            acc[0] = s
        else:
            for c in range(uw):
                acc[c] = 0.0
            for p in range(indptr[r], indptr[r + 1]):
                w = data[p]
                base = np.uint64(indices[p]) * ucols + uc0
                for c in range(uw):
                    acc[c] += w * x[base + c]
        out = np.uint64(r) * ucols + uc0
        if act == 0:
            for c in range(uw):
                y[out + c] = keep * x[out + c] + leak * _tanhj(gain[uc0 + c] * acc[c] + dr[j, c])
        elif act == 1:
            for c in range(uw):
                y[out + c] = keep * x[out + c] + leak * (gain[uc0 + c] * acc[c] + dr[j, c])
        elif act == 2:
            for c in range(uw):
                z = gain[uc0 + c] * acc[c] + dr[j, c]
                y[out + c] = keep * x[out + c] + leak / (1.0 + math.exp(-z))
        else:
            for c in range(uw):
                z = gain[uc0 + c] * acc[c] + dr[j, c]
                y[out + c] = keep * x[out + c] + leak * math.tanh(z)


def _finite(x: Any, rows: int, cols: int, c0: int, c1: int) -> bool:
    for r in range(rows):
        for c in range(c0, c1):
            if not math.isfinite(x[r * cols + c]):
                return False
    return True


def _run_columns(
    indptr: Any,
    indices: Any,
    data: Any,
    x: Any,
    y: Any,
    u: Any,
    win_t: Any,
    gain: Any,
    bias: Any,
    leak: float,
    s_in: float,
    act: int,
    n: int,
    rec_rows: Any,
    rec: Any,
    washout: int,
    check_every: int,
    c0: int,
    c1: int,
) -> int:
    """Advance columns ``[c0, c1)`` through all ``T`` steps, ping-ponging ``x`` and ``y``.

    After an even number of steps the state is in ``x``, after an odd number in ``y``.
    Returns -1, or the first step at which a NaN/inf was seen.
    """
    acc = np.empty(c1 - c0, dtype=x.dtype)
    dr = np.empty((win_t.shape[0], c1 - c0), dtype=x.dtype)
    rows = indptr.shape[0] - 1
    cols = x.shape[0] // rows
    a, b = x, y
    steps = u.shape[0]
    for t in range(steps):
        _drive(u[t], win_t, bias, s_in, c0, c1, dr)
        _rows(indptr, indices, data, a, b, cols, dr, gain, leak, act, n, 0, rows, c0, c1, acc)
        a, b = b, a
        if t >= washout:
            for i in range(rec_rows.shape[0]):
                base = rec_rows[i] * cols
                for c in range(c0, c1):
                    rec[t - washout, i, c] = a[base + c]
        if ((t + 1) % check_every == 0 or t == steps - 1) and not _finite(a, rows, cols, c0, c1):
            return t
    return -1


def _run_chunks(
    indptr: Any,
    indices: Any,
    data: Any,
    x: Any,
    y: Any,
    u: Any,
    win_t: Any,
    gain: Any,
    bias: Any,
    leak: float,
    s_in: float,
    act: int,
    n: int,
    rec_rows: Any,
    rec: Any,
    washout: int,
    check_every: int,
    bounds: Any,
) -> int:
    """One independent time loop per column chunk ``bounds[i]:bounds[i+1]`` (parallel)."""
    chunks = bounds.shape[0] - 1
    bad = np.full(chunks, -1, dtype=np.int64)
    for i in _prange(chunks):
        bad[i] = _run_columns_j(
            indptr,
            indices,
            data,
            x,
            y,
            u,
            win_t,
            gain,
            bias,
            leak,
            s_in,
            act,
            n,
            rec_rows,
            rec,
            washout,
            check_every,
            bounds[i],
            bounds[i + 1],
        )
    worst = -1
    for i in range(chunks):
        if bad[i] >= 0 and (worst < 0 or bad[i] < worst):
            worst = bad[i]
    return worst


def _step_serial(
    indptr: Any,
    indices: Any,
    data: Any,
    x: Any,
    y: Any,
    ut: Any,
    win_t: Any,
    gain: Any,
    bias: Any,
    leak: float,
    s_in: float,
    act: int,
    n: int,
) -> None:
    rows = indptr.shape[0] - 1
    cols = x.shape[0] // rows
    acc = np.empty(cols, dtype=x.dtype)
    dr = np.empty((win_t.shape[0], cols), dtype=x.dtype)
    _drive(ut, win_t, bias, s_in, 0, cols, dr)
    _rows(indptr, indices, data, x, y, cols, dr, gain, leak, act, n, 0, rows, 0, cols, acc)


# Fast-math without nnan/ninf: reassociation lets sums vectorise; NaN/inf still propagate.
_FM = {"reassoc", "contract", "arcp", "nsz"}

if _HAVE_NUMBA:
    _prange = _nb.prange
    _tanhj = _nb.njit(inline="always", fastmath=_FM, cache=True)(_tanh)
    _drive = _nb.njit(cache=True)(_drive)
    _rows = _nb.njit(fastmath=_FM, cache=True)(_rows)
    _finite = _nb.njit(cache=True)(_finite)
    _run_columns_j = _nb.njit(cache=True)(_run_columns)
    _run_chunks_j = _nb.njit(parallel=True, cache=True)(_run_chunks)
    _step_serial_j = _nb.njit(cache=True)(_step_serial)
else:  # pragma: no cover
    _prange = range
    _tanhj = _tanh
    _run_columns_j = _run_columns
    _run_chunks_j = _run_chunks
    _step_serial_j = _step_serial


def run(
    indptr: Any,
    indices: Any,
    data: Any,
    x: Any,
    u: Any,
    win_t: Any,
    gain: Any,
    bias: Any,
    leak: float,
    s_in: float,
    act: int,
    n: int,
    rec_rows: Any,
    rec: Any,
    washout: int,
    check_every: int,
    parallel: bool = True,
) -> tuple[Any, int]:
    """Advance ``x`` ``(R, C)`` over ``u`` ``(T, B, K)``; returns (final state, bad step or -1).

    ``rec[t - washout, i, c] = x_t[rec_rows[i], c]`` for ``t >= washout``.
    """
    x = np.ascontiguousarray(x)
    shape = x.shape
    cols = x.shape[1]
    x = x.reshape(-1)
    y = np.empty_like(x)
    chunks = min(cols, threads() if parallel else 1)
    bounds = np.linspace(0, cols, chunks + 1).round().astype(np.int64)
    if chunks == 1:
        bad = _run_columns_j(
            indptr,
            indices,
            data,
            x,
            y,
            u,
            win_t,
            gain,
            bias,
            leak,
            s_in,
            act,
            n,
            rec_rows,
            rec,
            washout,
            check_every,
            0,
            cols,
        )
    else:
        bad = _run_chunks_j(
            indptr,
            indices,
            data,
            x,
            y,
            u,
            win_t,
            gain,
            bias,
            leak,
            s_in,
            act,
            n,
            rec_rows,
            rec,
            washout,
            check_every,
            bounds,
        )
    final = x if u.shape[0] % 2 == 0 else y
    return final.reshape(shape), int(bad)


def step(
    indptr: Any,
    indices: Any,
    data: Any,
    x: Any,
    ut: Any,
    win_t: Any,
    gain: Any,
    bias: Any,
    leak: float,
    s_in: float,
    act: int,
    n: int,
    parallel: bool = True,
) -> Any:
    """One step of every row and column (one core); returns the new ``(R, C)`` state."""
    x = np.ascontiguousarray(x)
    y = np.empty_like(x)
    _step_serial_j(
        indptr,
        indices,
        data,
        x.reshape(-1),
        y.reshape(-1),
        ut,
        win_t,
        gain,
        bias,
        leak,
        s_in,
        act,
        n,
    )
    return y
