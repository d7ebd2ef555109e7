"""The state update of `engine.run_blocks`, one chunk of state columns at a time.

A chunk is a C-contiguous ``(M*N, width)`` block of state columns. Per step and chunk::

    Z = Wt @ X                                    (the sparse product)
    Z = f(gain * Z + D)                           (D: input drive and bias, per column)
    Z = (1 - a) X + a Z                           (leak a, when a < 1)

Implementations (`PRODUCTS`, the ``product`` of `engine.run_blocks`):

- ``"torch"``: MKL's sparse kernel through ``torch.mm`` on one thread and torch's fused
  elementwise kernels, chunks of exactly ``width = 16`` columns (the state is padded with zero
  columns). MKL picks its kernel by the number of columns (for float32, 4, 8, ..., 24 columns
  round differently from 1-3 or 25+), so one fixed width keeps every column's sums independent
  of the columns beside it; 16 columns are whole SIMD vectors, so the elementwise kernels treat
  every lane alike (the measured cost per column and step, against scipy's: docs/reservoir.md).
- ``"scipy"``: scipy's CSR kernel (a plain loop per column) and numpy ufuncs, chunks of up to 256
  columns (the chunks only bound the working set).

``"auto"`` is torch when it imports, else scipy. Either way a column's arithmetic does not depend
on the other columns (tests check it bit for bit).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.errors import UsageError

PRODUCTS = ("auto", "scipy", "torch")


class ChunkedProduct:
    """``Wt`` ``(M*N, M*N)`` (rows post) and the chunked update by one implementation."""

    def __init__(self, wt: sp.csr_matrix, product: str = "auto") -> None:
        if product not in PRODUCTS:
            raise UsageError(f"the sparse product must be one of {', '.join(PRODUCTS)}")
        self.torch: Any = None
        if product in ("auto", "torch"):
            try:
                import torch
            except ImportError:  # pragma: no cover
                if product == "torch":
                    raise UsageError("the torch product needs torch installed") from None
            else:
                self.torch = torch
        self.wt = wt
        self.width = 16 if self.torch is not None else 256
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
        return "torch" if self.torch is not None else "scipy"

    def chunks(self, columns: int) -> list[int]:
        """Chunk widths for ``columns`` state columns (torch: all equal, the last padded)."""
        if self.torch is not None:
            return [self.width] * max(1, -(-columns // self.width))
        full, rest = divmod(columns, self.width)
        return [self.width] * full + ([rest] if rest or not full else [])

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
        n = drive.shape[0]
        if self.torch is None:
            z[...] = self.wt @ x
            z3 = z.reshape(m, n, -1)
            if gain is not None:
                z3 *= gain
            z3 += drive
            return
        t = self.torch
        tz = t.from_numpy(z)
        t.mm(self.tw, t.from_numpy(x), out=tz)
        tz3 = tz.view(m, n, -1)
        if gain is None:
            tz3.add_(t.from_numpy(drive))
        else:
            t.addcmul(t.from_numpy(drive), tz3, t.from_numpy(gain), out=tz3)

    def activate(self, z: np.ndarray, x: np.ndarray, activation: str, leak: float) -> None:
        """``z = (1 - leak) x + leak f(z)`` in place, ``f`` tanh, sigmoid or the identity."""
        if self.torch is None:
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
            return
        tz = self.torch.from_numpy(z)
        if activation == "tanh":
            tz.tanh_()
        elif activation == "sigmoid":
            tz.sigmoid_()
        if leak != 1.0:
            tz.mul_(leak).add_(self.torch.from_numpy(x), alpha=1.0 - leak)
