"""Fused gather-and-gate kernels with a hand-written backward: the fast path of every logic layer.

``gather_gate(x, a, b, c)`` computes, for every neuron ``j`` and sample ``i``,

    y[j, i] = c[j, 0] + c[j, 1] x[a_j, i] + c[j, 2] x[b_j, i] + c[j, 3] x[a_j, i] x[b_j, i]

on feature-major tensors: ``x`` (N_in, B), ``a, b`` (n,) int64, ``c`` (n, 4) -> ``y`` (n, B).
Its backward needs only ``x`` and ``c`` (the gathered inputs are recomputed), so the memory of a
layer is ``n x B`` floats for the output instead of ``16 n B`` for a 16-way mixture:

    dL/dc[j]   = sum_i g[j, i] * (1, xa, xb, xa xb)
    dL/dx[a_j] += g[j, i] (c1 + c3 xb),   dL/dx[b_j] += g[j, i] (c2 + c3 xa)

Two implementations of the same maths:

- ``numba`` (CPU, float32): the forward in parallel over gates. The backward is one fused pass
  on one thread (`_backward_py`, also for layers too small to wake more threads) and two passes
  on several (`_backward_split_py`), with the same bits whatever the thread count (tested):
  ``dL/dc`` is summed over gates, each gate's sum over the whole batch by the same loop, nested
  as deep, as the one-thread kernel's, so LLVM vectorises and interleaves it the same way (its
  order is the one-thread order); ``dL/dx`` is then scattered over batch columns, each column
  written by one thread, its terms added in gate order as on one thread. The batch used to be
  split into one chunk per thread with the chunks' partial ``dL/dc`` added afterwards, so the
  thread count changed the rounding of every coefficient gradient and AdamW turned that into
  different runs (docs/logic.md, Determinism). Uses numba's threads (as many as torch's).
- ``torch`` (any device, the GPU path): ``index_select`` / ``index_add_`` in plain torch.

`wirelab.logic.functional.gate_poly` is the readable reference both are tested against.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import torch


def flavour(fn: Any, tag: str) -> Any:
    """A copy of the plain function ``fn`` named ``<name>_<tag>`` (its own numba cache entry)."""
    out = types.FunctionType(
        fn.__code__, fn.__globals__, f"{fn.__name__}_{tag}", fn.__defaults__, fn.__closure__
    )
    out.__qualname__ = f"{fn.__qualname__}_{tag}"
    return out


GATE_BLOCK = 64  # gates a task of the threaded backward's gate pass (any size gives the same bits)

try:  # numba is optional: without it the torch path is used.
    import os

    import numba
    from numba import njit, prange

    # numba's OpenMP layer spin-waits between parallel regions and starves torch's own threads
    # (docs/logic.md has the measured cost).
    if "NUMBA_THREADING_LAYER" not in os.environ:
        numba.config.THREADING_LAYER = "workqueue"
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_NUMBA = False

if HAVE_NUMBA:

    def _forward_py(x, a, b, c, y):
        n = a.shape[0]
        bsz = x.shape[1]
        for j in prange(n):
            xa = x[a[j]]
            xb = x[b[j]]
            c0 = c[j, 0]
            c1 = c[j, 1]
            c2 = c[j, 2]
            c3 = c[j, 3]
            for i in range(bsz):
                y[j, i] = c0 + c1 * xa[i] + c2 * xb[i] + c3 * xa[i] * xb[i]

    def _backward_py(x, a, b, c, gy, gx, gc_part, chunk):
        # one read-only loop (the four coefficient sums), then one loop per scattered row, so
        # that each loop vectorises (measured ~1.6x faster than one fused loop)
        bsz = x.shape[1]
        for k in prange(gc_part.shape[0]):
            lo = k * chunk
            hi = min(bsz, lo + chunk)
            for j in range(a.shape[0]):
                aj = a[j]
                bj = b[j]
                c1 = c[j, 1]
                c2 = c[j, 2]
                c3 = c[j, 3]
                g = gy[j, lo:hi]
                xa = x[aj, lo:hi]
                xb = x[bj, lo:hi]
                s0 = np.float32(0.0)
                s1 = np.float32(0.0)
                s2 = np.float32(0.0)
                s3 = np.float32(0.0)
                for i in range(hi - lo):
                    s0 += g[i]
                    s1 += g[i] * xa[i]
                    s2 += g[i] * xb[i]
                    s3 += g[i] * xa[i] * xb[i]
                ra = gx[aj, lo:hi]
                for i in range(hi - lo):
                    ra[i] += g[i] * (c1 + c3 * xb[i])
                rb = gx[bj, lo:hi]
                for i in range(hi - lo):
                    rb[i] += g[i] * (c2 + c3 * xa[i])
                gc_part[k, j, 0] = s0
                gc_part[k, j, 1] = s1
                gc_part[k, j, 2] = s2
                gc_part[k, j, 3] = s3

    def _backward_split_py(x, a, b, c, gy, gx, gc_part, chunk, whole):
        # the threaded backward, in two passes that each give every sum one fixed order. First
        # the gate sums, over blocks of gates: each gate's sums over the whole batch, the loops
        # of `_backward_py` with one chunk of ``whole`` columns, nested as deep (LLVM picks the
        # vector width and interleaving of a reduction from its context, and these must match).
        # Then the scatter, over batch columns: each column of dL/dx written by one thread, its
        # terms added in gate order, as `_backward_py` adds them.
        bsz = x.shape[1]
        n = a.shape[0]
        for blk in prange(-(-n // GATE_BLOCK)):
            for k in range(gc_part.shape[0]):
                lo = k * whole
                hi = min(bsz, lo + whole)
                for j in range(blk * GATE_BLOCK, min(n, blk * GATE_BLOCK + GATE_BLOCK)):
                    g = gy[j, lo:hi]
                    xa = x[a[j], lo:hi]
                    xb = x[b[j], lo:hi]
                    s0 = np.float32(0.0)
                    s1 = np.float32(0.0)
                    s2 = np.float32(0.0)
                    s3 = np.float32(0.0)
                    for i in range(hi - lo):
                        s0 += g[i]
                        s1 += g[i] * xa[i]
                        s2 += g[i] * xb[i]
                        s3 += g[i] * xa[i] * xb[i]
                    gc_part[k, j, 0] = s0
                    gc_part[k, j, 1] = s1
                    gc_part[k, j, 2] = s2
                    gc_part[k, j, 3] = s3
        for k in prange(-(-bsz // chunk)):
            lo = k * chunk
            hi = min(bsz, lo + chunk)
            for j in range(a.shape[0]):
                c1 = c[j, 1]
                c2 = c[j, 2]
                c3 = c[j, 3]
                g = gy[j, lo:hi]
                xa = x[a[j], lo:hi]
                xb = x[b[j], lo:hi]
                ra = gx[a[j], lo:hi]
                for i in range(hi - lo):
                    ra[i] += g[i] * (c1 + c3 * xb[i])
                rb = gx[b[j], lo:hi]
                for i in range(hi - lo):
                    rb[i] += g[i] * (c2 + c3 * xa[i])

    # serial kernels for small layers or one thread (no wake-ups), parallel ones for big layers;
    # each flavour compiles its own copy of the function: numba's on-disk cache is keyed by the
    # function's name, so one shared function made the "serial" kernels load the parallel ones
    _forward_par = njit(parallel=True, fastmath=True, cache=True)(flavour(_forward_py, "par"))
    _backward_par = njit(parallel=True, fastmath=True, cache=True)(
        flavour(_backward_split_py, "par")
    )
    _forward_ser = njit(fastmath=True, cache=True)(flavour(_forward_py, "ser"))
    _backward_ser = njit(fastmath=True, cache=True)(flavour(_backward_py, "ser"))

PARALLEL_MIN_WORK = 1 << 16  # n * B below which one thread is faster than waking the others
_KERNEL_THREADS: int | None = None  # None: follow torch.get_num_threads()


def set_threads(n: int | None) -> None:
    """Threads for the numba kernels (``None``: as many as torch uses)."""
    global _KERNEL_THREADS
    _KERNEL_THREADS = None if n is None else max(1, int(n))


def use_threads(n: int) -> None:
    """The training setting: ``n`` threads for the fused kernels, one for torch's small ops.

    Measured here (6 x 8,000 gates, batch 256, loaded 2-core machine): 0.10 s per step with
    torch on 1 thread and the kernels on 2, 0.89 s with torch on 2 as well, because torch's idle
    OpenMP threads spin while the kernels run and its many small ops (softmax, AdamW on
    ``(n, 16)`` logits) pay the wake-up cost on every call.
    """
    torch.set_num_threads(1)
    set_threads(n if HAVE_NUMBA else None)
    if not HAVE_NUMBA:
        torch.set_num_threads(n)


def _use_numba(x: torch.Tensor, kernel: str) -> bool:
    if kernel == "torch":
        return False
    ok = HAVE_NUMBA and x.device.type == "cpu" and x.dtype == torch.float32
    if kernel == "numba" and not ok:
        raise RuntimeError("the numba kernel needs numba and float32 CPU tensors")
    return ok


def _threads(work: int) -> int:
    """Threads for a kernel call: torch's thread count (capped by numba's), 1 for small work."""
    if work < PARALLEL_MIN_WORK:
        return 1
    req = _KERNEL_THREADS if _KERNEL_THREADS is not None else torch.get_num_threads()
    want = max(1, min(req, numba.config.NUMBA_NUM_THREADS))
    if want > 1 and numba.get_num_threads() != want:
        numba.set_num_threads(want)
    return want


class GatherGate(torch.autograd.Function):
    """Autograd function for `gather_gate`; ``kernel`` is ``auto``, ``numba`` or ``torch``."""

    @staticmethod
    def forward(
        ctx: Any,
        x: torch.Tensor,
        a: torch.Tensor,
        b: torch.Tensor,
        c: torch.Tensor,
        kernel: str = "auto",
    ) -> torch.Tensor:
        x = x.contiguous()
        c = c.contiguous()
        numba_ok = _use_numba(x, kernel)
        if numba_ok:
            y = torch.empty((a.shape[0], x.shape[1]), dtype=x.dtype)
            fwd = _forward_par if _threads(a.shape[0] * x.shape[1]) > 1 else _forward_ser
            fwd(x.numpy(), a.numpy(), b.numpy(), c.detach().numpy(), y.numpy())
        else:
            xa = x.index_select(0, a)  # (n, B)
            xb = x.index_select(0, b)  # (n, B)
            y = torch.addcmul(c[:, :1] + c[:, 2:3] * xb, xa, c[:, 1:2] + c[:, 3:4] * xb)
        ctx.save_for_backward(x, a, b, c)
        ctx.numba_ok = numba_ok
        return y

    @staticmethod
    def backward(ctx: Any, gy: torch.Tensor) -> tuple[Any, ...]:
        x, a, b, c = ctx.saved_tensors
        gy = gy.contiguous()
        if ctx.numba_ok:
            bsz = x.shape[1]
            threads = _threads(a.shape[0] * bsz)
            chunk = max(16, -(-bsz // threads))
            gx = torch.zeros_like(x)
            part = torch.empty((1, a.shape[0], 4), dtype=x.dtype)  # one chunk: the whole batch
            bwd = _backward_par if threads > 1 else _backward_ser
            bwd(
                x.numpy(),
                a.numpy(),
                b.numpy(),
                c.detach().numpy(),
                gy.numpy(),
                gx.numpy(),
                part.numpy(),
                chunk,
                *((max(16, bsz),) if threads > 1 else ()),
            )
            gc = part.sum(0)
        else:
            xa = x.index_select(0, a)
            xb = x.index_select(0, b)
            gc = torch.stack(
                [gy.sum(1), (gy * xa).sum(1), (gy * xb).sum(1), (gy * xa * xb).sum(1)], dim=1
            )
            gx = torch.zeros_like(x)
            gx.index_add_(0, a, gy * (c[:, 1:2] + c[:, 3:4] * xb))
            gx.index_add_(0, b, gy * (c[:, 2:3] + c[:, 3:4] * xa))
        return gx, None, None, gc, None


def gather_gate(
    x: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, kernel: str = "auto"
) -> torch.Tensor:
    """``x`` (N_in, B), ``a, b`` (n,), ``c`` (n, 4) -> (n, B); see the module docstring."""
    return GatherGate.apply(x, a, b, c, kernel)
