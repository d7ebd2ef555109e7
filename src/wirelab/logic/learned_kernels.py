"""Fused kernel of a learned-connection layer: soft input selection and gate, hand-written backward.

``learned_gate(x, ca, pa, cb, pb, c)`` computes, for every gate ``j`` and sample ``i``,

    xa[j, i] = sum_k pa[j, k] x[ca[j, k], i]        xb[j, i] = sum_k pb[j, k] x[cb[j, k], i]
    y[j, i]  = c0 + c1 xa + c2 xb + c3 xa xb

with ``x`` (N_in, B), ``ca, cb`` (n, K) int64 candidate wires, ``pa, pb`` (n, K) selection
weights (the softmax of the connection logits, taken in torch), ``c`` (n, 4) -> ``y`` (n, B).
The backward, with ``ga = g (c1 + c3 xb)`` and ``gb = g (c2 + c3 xa)``:

    dL/dc[j]     = sum_i g[j, i] (1, xa, xb, xa xb)
    dL/dpa[j, k] = sum_i ga[j, i] x[ca[j, k], i]       dL/dx[ca[j, k], i] += pa[j, k] ga[j, i]

(the same for ``b``). The numba version (CPU, float32) runs the forward in parallel over gates
and keeps ``xa, xb`` (``2 n B`` floats) for the backward. The backward gives the same bits on
any thread count (tested), as `wirelab.logic.kernels.gather_gate`'s: one fused pass on one
thread (`_backward_py`); on several (`_backward_split_py`), the sums ``dL/dc, dL/dpa, dL/dpb``
over blocks of gates (each gate's sums over the whole batch by the one-thread kernel's loops,
nested as deep so that LLVM compiles them alike), then the scatter into ``dL/dx`` over batch
columns (each column written by one thread, its terms added in gate and candidate order). The
extra cost of the second pass is recomputing ``ga, gb``. Elsewhere the plain-torch form
(`wirelab.logic.learned.select_fast` and the gate polynomial) is used, and the tests check
both against `wirelab.logic.learned.select_reference`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from wirelab.logic import kernels

if kernels.HAVE_NUMBA:
    from numba import njit, prange

    from wirelab.logic.kernels import GATE_BLOCK, flavour

    def _forward_py(x, ca, pa, cb, pb, c, xa, xb, y):
        n, k = ca.shape
        bsz = x.shape[1]
        for j in prange(n):
            ra = xa[j]
            rb = xb[j]
            for i in range(bsz):
                ra[i] = 0.0
                rb[i] = 0.0
            for m in range(k):
                wa = pa[j, m]
                sa = x[ca[j, m]]
                for i in range(bsz):
                    ra[i] += wa * sa[i]
                wb = pb[j, m]
                sb = x[cb[j, m]]
                for i in range(bsz):
                    rb[i] += wb * sb[i]
            c0 = c[j, 0]
            c1 = c[j, 1]
            c2 = c[j, 2]
            c3 = c[j, 3]
            for i in range(bsz):
                y[j, i] = c0 + c1 * ra[i] + c2 * rb[i] + c3 * ra[i] * rb[i]

    def _backward_py(x, ca, pa, cb, pb, c, xa, xb, gy, gx, gpa, gpb, gc, chunk):
        n, k = ca.shape
        bsz = x.shape[1]
        for t in prange(gc.shape[0]):
            lo = t * chunk
            hi = min(bsz, lo + chunk)
            w = hi - lo
            ga = np.empty(w, dtype=np.float32)
            gb = np.empty(w, dtype=np.float32)
            for j in range(n):
                c1 = c[j, 1]
                c2 = c[j, 2]
                c3 = c[j, 3]
                g = gy[j, lo:hi]
                ra = xa[j, lo:hi]
                rb = xb[j, lo:hi]
                s0 = np.float32(0.0)
                s1 = np.float32(0.0)
                s2 = np.float32(0.0)
                s3 = np.float32(0.0)
                for i in range(w):
                    s0 += g[i]
                    s1 += g[i] * ra[i]
                    s2 += g[i] * rb[i]
                    s3 += g[i] * ra[i] * rb[i]
                    ga[i] = g[i] * (c1 + c3 * rb[i])
                    gb[i] = g[i] * (c2 + c3 * ra[i])
                gc[t, j, 0] = s0
                gc[t, j, 1] = s1
                gc[t, j, 2] = s2
                gc[t, j, 3] = s3
                for m in range(k):
                    src = x[ca[j, m], lo:hi]
                    s = np.float32(0.0)
                    for i in range(w):
                        s += ga[i] * src[i]
                    gpa[t, j, m] = s
                    wa = pa[j, m]
                    dst = gx[ca[j, m], lo:hi]
                    for i in range(w):
                        dst[i] += wa * ga[i]
                    src = x[cb[j, m], lo:hi]
                    s = np.float32(0.0)
                    for i in range(w):
                        s += gb[i] * src[i]
                    gpb[t, j, m] = s
                    wb = pb[j, m]
                    dst = gx[cb[j, m], lo:hi]
                    for i in range(w):
                        dst[i] += wb * gb[i]

    def _backward_split_py(x, ca, pa, cb, pb, c, xa, xb, gy, gx, gpa, gpb, gc, chunk, whole):
        # the threaded backward, two passes that each give every sum one fixed order: the gate
        # sums over blocks of gates (each gate's sums over the whole batch, the loops of
        # `_backward_py` with one chunk, nested as deep so that LLVM vectorises them the same
        # way), then the scatter over batch columns (each column of dL/dx written by one
        # thread, its terms added in gate and candidate order, as `_backward_py` adds them)
        n, k = ca.shape
        bsz = x.shape[1]
        for blk in prange(-(-n // GATE_BLOCK)):
            for t in range(gc.shape[0]):
                lo = t * whole
                hi = min(bsz, lo + whole)
                w = hi - lo
                ga = np.empty(w, dtype=np.float32)
                gb = np.empty(w, dtype=np.float32)
                for j in range(blk * GATE_BLOCK, min(n, blk * GATE_BLOCK + GATE_BLOCK)):
                    c1 = c[j, 1]
                    c2 = c[j, 2]
                    c3 = c[j, 3]
                    g = gy[j, lo:hi]
                    ra = xa[j, lo:hi]
                    rb = xb[j, lo:hi]
                    s0 = np.float32(0.0)
                    s1 = np.float32(0.0)
                    s2 = np.float32(0.0)
                    s3 = np.float32(0.0)
                    for i in range(w):
                        s0 += g[i]
                        s1 += g[i] * ra[i]
                        s2 += g[i] * rb[i]
                        s3 += g[i] * ra[i] * rb[i]
                        ga[i] = g[i] * (c1 + c3 * rb[i])
                        gb[i] = g[i] * (c2 + c3 * ra[i])
                    gc[t, j, 0] = s0
                    gc[t, j, 1] = s1
                    gc[t, j, 2] = s2
                    gc[t, j, 3] = s3
                    for m in range(k):
                        src = x[ca[j, m], lo:hi]
                        s = np.float32(0.0)
                        for i in range(w):
                            s += ga[i] * src[i]
                        gpa[t, j, m] = s
                        src = x[cb[j, m], lo:hi]
                        s = np.float32(0.0)
                        for i in range(w):
                            s += gb[i] * src[i]
                        gpb[t, j, m] = s
        for t in prange(-(-bsz // chunk)):
            lo = t * chunk
            hi = min(bsz, lo + chunk)
            w = hi - lo
            ga = np.empty(w, dtype=np.float32)
            gb = np.empty(w, dtype=np.float32)
            for j in range(n):
                c1 = c[j, 1]
                c2 = c[j, 2]
                c3 = c[j, 3]
                g = gy[j, lo:hi]
                ra = xa[j, lo:hi]
                rb = xb[j, lo:hi]
                for i in range(w):
                    ga[i] = g[i] * (c1 + c3 * rb[i])
                    gb[i] = g[i] * (c2 + c3 * ra[i])
                for m in range(k):
                    wa = pa[j, m]
                    dst = gx[ca[j, m], lo:hi]
                    for i in range(w):
                        dst[i] += wa * ga[i]
                    wb = pb[j, m]
                    dst = gx[cb[j, m], lo:hi]
                    for i in range(w):
                        dst[i] += wb * gb[i]

    # each flavour compiles its own copy of the function: numba's on-disk cache is keyed by the
    # function's name, so one shared function made the "serial" kernels load the parallel ones
    _forward_par = njit(parallel=True, fastmath=True, cache=True)(flavour(_forward_py, "par"))
    _backward_par = njit(parallel=True, fastmath=True, cache=True)(
        flavour(_backward_split_py, "par")
    )
    _forward_ser = njit(fastmath=True, cache=True)(flavour(_forward_py, "ser"))
    _backward_ser = njit(fastmath=True, cache=True)(flavour(_backward_py, "ser"))


def numba_ok(x: torch.Tensor) -> bool:
    """Whether the numba kernel applies: numba installed, float32 CPU activations."""
    return kernels.HAVE_NUMBA and x.device.type == "cpu" and x.dtype == torch.float32


class LearnedGate(torch.autograd.Function):
    """Autograd function of `learned_gate` (numba only; callers check `numba_ok`)."""

    @staticmethod
    def forward(
        ctx: Any,
        x: torch.Tensor,
        ca: torch.Tensor,
        pa: torch.Tensor,
        cb: torch.Tensor,
        pb: torch.Tensor,
        c: torch.Tensor,
    ) -> torch.Tensor:
        x, pa, pb, c = (t.detach().contiguous() for t in (x, pa, pb, c))
        n, bsz = ca.shape[0], x.shape[1]
        xa = torch.empty((n, bsz), dtype=x.dtype)
        xb = torch.empty((n, bsz), dtype=x.dtype)
        y = torch.empty((n, bsz), dtype=x.dtype)
        work = n * bsz * ca.shape[1]
        fwd = _forward_par if kernels._threads(work) > 1 else _forward_ser
        args = (x, ca, pa, cb, pb, c, xa, xb, y)
        fwd(*(t.numpy() for t in args))
        ctx.save_for_backward(x, ca, pa, cb, pb, c, xa, xb)
        return y

    @staticmethod
    def backward(ctx: Any, gy: torch.Tensor) -> tuple[Any, ...]:
        x, ca, pa, cb, pb, c, xa, xb = ctx.saved_tensors
        gy = gy.contiguous()
        n, k = ca.shape
        bsz = x.shape[1]
        threads = kernels._threads(n * bsz * k)
        chunk = max(16, -(-bsz // threads))
        gx = torch.zeros_like(x)
        gpa = torch.empty((1, n, k), dtype=x.dtype)  # one chunk: the whole batch
        gpb = torch.empty((1, n, k), dtype=x.dtype)
        gc = torch.empty((1, n, 4), dtype=x.dtype)
        bwd = _backward_par if threads > 1 else _backward_ser
        args = (x, ca, pa, cb, pb, c, xa, xb, gy, gx, gpa, gpb, gc)
        bwd(*(t.numpy() for t in args), chunk, *((max(16, bsz),) if threads > 1 else ()))
        return gx, None, gpa.sum(0), None, gpb.sum(0), gc.sum(0)


def learned_gate(
    x: torch.Tensor,
    ca: torch.Tensor,
    pa: torch.Tensor,
    cb: torch.Tensor,
    pb: torch.Tensor,
    c: torch.Tensor,
) -> torch.Tensor:
    """``(N_in, B)`` -> ``(n, B)``; see the module docstring (numba path; see `numba_ok`)."""
    return LearnedGate.apply(x, ca, pa, cb, pb, c)
