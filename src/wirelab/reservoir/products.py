"""The state update of `engine.run_blocks`, one chunk of state columns at a time.

A chunk is a C-contiguous ``(M*N, width)`` block of state columns. Per step and chunk::

    Z = Wt @ X                                    (the sparse product)
    Z = f(gain * Z + D)                           (D: input drive and bias, per column)
    Z = (1 - a) X + a Z                           (leak a, when a < 1)

Implementations of the product (`PRODUCTS`, the ``product`` of `engine.run_blocks`):

- ``"torch"``: MKL's sparse kernel through ``torch.mm`` on one thread and torch's fused
  elementwise kernels (gain and drive in one ``addcmul``, ``tanh_``), chunks of exactly
  ``width = 16`` columns (the state padded with zero columns). MKL picks its float32 kernel by
  the number of columns, and torch's vectorised elementwise kernels round a tail differently
  from whole SIMD vectors, so one fixed width keeps every column's arithmetic independent of the
  columns beside it (and the published figures, made on this path, repeat bit for bit).
- ``"mkl"``: the same MKL product through ``torch.mm`` (and torch's fused gain and drive), numpy's
  elementwise update (``np.tanh``: 2.2 us per 2,952-neuron column against torch's 11.1 us on
  one thread, measured on the larval matrix); in float64 the chunks are cut per group like
  scipy's, at most ``width = 16`` columns and not padded (MKL's float64 sums do not depend on
  the width), in float32 exactly 16 like torch's.
- ``"scipy"``: scipy's CSR kernel (a plain loop per column) and numpy's elementwise update,
  chunks of at most 256 columns, cut where `engine.run_blocks` asks (`chunks`: no chunk spans
  two groups of columns, so short blocks do not idle beside long ones).

``"auto"`` is ``mkl`` for float64 states and ``torch`` for float32 when torch imports, else
``scipy``. Measured on the larval matrix: numpy's float64 tanh is about 5x torch's single-thread
one, and the torch path's tanh was a third of a study's engine time (0.80 of 2.28 CPU-s); the
published tables made before ``mkl`` used the ``torch`` path in float64 (``product="torch"``
repeats them bit for bit): through the chaotic 84-step Mackey-Glass free run the last bits of
the states moved one degree null's NRMSE_84 from 0.73 to 27,264 when the update changed, so a
single free-run score of an unstable network is not a stable figure (read null statistics as
ranks). Whatever the implementation, a column's arithmetic does not depend on the other columns
(tests check it bit for bit); the implementations agree to rounding
(``tests/reservoir/test_products.py``).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.errors import UsageError

PRODUCTS = ("auto", "scipy", "torch", "mkl")
MKL_WIDTH = 16  # MKL's best width on the larval matrix (14 us per column; 17 at 4 and 8)


class ChunkedProduct:
    """``Wt`` ``(M*N, M*N)`` (rows post) and the chunked update by one implementation."""

    def __init__(self, wt: sp.csr_matrix, product: str = "auto") -> None:
        if product not in PRODUCTS:
            raise UsageError(f"the sparse product must be one of {', '.join(PRODUCTS)}")
        self.torch: Any = None
        if product != "scipy":
            try:
                import torch
            except ImportError:  # pragma: no cover
                if product != "auto":
                    raise UsageError(f"the {product} product needs torch installed") from None
            else:
                self.torch = torch
        float64 = wt.dtype == np.float64
        if self.torch is None:
            self.kind = "scipy"
        elif product == "auto":
            self.kind = "mkl" if float64 else "torch"
        else:
            self.kind = product
        self.wt = wt
        self.width = 256 if self.torch is None else MKL_WIDTH
        self.padded = self.kind == "torch" or (self.kind == "mkl" and not float64)
        if self.torch is not None:
            t = self.torch
            with warnings.catch_warnings():  # torch flags its sparse CSR support as beta
                warnings.simplefilter("ignore")
                self.tw = t.sparse_csr_tensor(
                    t.from_numpy(wt.indptr.astype(np.int32)),
                    t.from_numpy(wt.indices.astype(np.int32)),
                    t.from_numpy(wt.data),
                    size=wt.shape,
                )

    @property
    def name(self) -> str:
        return str(self.kind)

    def chunks(self, groups: Sequence[int]) -> list[int]:
        """Chunk widths for consecutive groups of state columns (``groups``: column counts):
        each group in chunks of at most `width`, no chunk spanning two groups; torch (and mkl
        in float32): all columns in chunks of exactly `width`, the last padded (module
        docstring)."""
        if self.padded:
            return [self.width] * max(1, -(-int(sum(groups)) // self.width))
        out: list[int] = []
        for size in groups:
            full, rest = divmod(int(size), self.width)
            out += [self.width] * full + ([rest] if rest else [])
        return out or [0]

    @contextlib.contextmanager
    def one_thread(self) -> Iterator[None]:
        """torch's intra-op threads set to 1 for the duration (restored after)."""
        if self.torch is None:
            yield
            return
        saved = self.torch.get_num_threads()
        self.torch.set_num_threads(1)
        try:
            yield
        finally:
            self.torch.set_num_threads(saved)

    def step(
        self,
        x: np.ndarray,
        z: np.ndarray,
        gain: np.ndarray | None,
        drive: np.ndarray,
        m: int,
    ) -> None:
        """``z = gain * (Wt @ x) + drive`` in place: ``x``, ``z`` ``(M*N, W)``, ``gain`` ``(W,)``
        (None: all ones), ``drive`` ``(N, W)`` shared by the M networks."""
        if self.torch is not None:
            t = self.torch
            tz = t.from_numpy(z)
            t.mm(self.tw, t.from_numpy(x), out=tz)
            tz3 = tz.view(m, drive.shape[0], -1)
            if gain is None:
                tz3.add_(t.from_numpy(drive))
            else:
                t.addcmul(t.from_numpy(drive), tz3, t.from_numpy(gain), out=tz3)
            return
        z[...] = self.wt @ x
        z3 = z.reshape(m, drive.shape[0], -1)
        if gain is not None:
            np.multiply(z3, gain, out=z3)
        np.add(z3, drive, out=z3)

    def activate(self, z: np.ndarray, x: np.ndarray, activation: str, leak: float) -> None:
        """``z = (1 - leak) x + leak f(z)`` in place, ``f`` tanh, sigmoid or the identity."""
        if self.kind == "torch":
            tz = self.torch.from_numpy(z)
            if activation == "tanh":
                tz.tanh_()
            elif activation == "sigmoid":
                tz.sigmoid_()
            if leak != 1.0:
                tz.mul_(leak).add_(self.torch.from_numpy(x), alpha=1.0 - leak)
            return
        if activation == "tanh":
            np.tanh(z, out=z)
        elif activation == "sigmoid":
            np.negative(z, out=z)
            np.exp(z, out=z)
            z += 1.0
            np.reciprocal(z, out=z)
        if leak != 1.0:
            z *= z.dtype.type(leak)
            z += z.dtype.type(1.0 - leak) * x
