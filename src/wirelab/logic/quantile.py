"""Per-image quantile inputs: one bit a pixel, 1 where the pixel is above its image's own quantile.

After LILogicNet's public code (Fojcik, Zioma, Armaitis 2025, arXiv:2511.12340), an encoding of
the data, not of the model: image ``i`` with pixels ``x_i`` ``(H W,)`` becomes

    t_i = quantile(x_i, q)        (linear interpolation between order statistics, q = 0.75)
    y_i[p] = 255 if x_i[p] > t_i else 0

so a model reading it with ``binarize = "fixed"`` at any threshold in (0, 1) sees exactly those
bits, real-valued training inputs (``inputs = "real"``) equal the bits too, and the discrete
network, C, Verilog and FPGA back ends take the encoded image (a circuit of this training set
expects its input already encoded). With linear interpolation and ``q = 0.75`` over ``P``
pixels, ``t_i`` lies between the sorted pixels ``v[floor(h)]`` and ``v[floor(h) + 1]``,
``h = q (P - 1)``, so at most ``P - floor(h) - 1`` pixels (196 of MNIST's 784) are 1, fewer on
ties: an MNIST digit with fewer than a quarter of its pixels inked has ``t_i = 0`` and every
inked pixel is 1.

`TRAINING_SETS` (`wirelab.logic.datasets`) has ``mnist-q75``: MNIST so encoded
(`wirelab.logic.datasets.quantile_set`). `quantile_bits` is the vectorised form,
`quantile_bits_reference` the per-image loop it is tested against.

Example:
    >>> img = np.arange(16, dtype=np.uint8).reshape(1, 4, 4)
    >>> int((quantile_bits(img) > 0).sum())  # t = 11.25: pixels 12..15
    4
"""

from __future__ import annotations

import numpy as np

from wirelab.errors import UsageError

QUANTILE = 0.75


def quantile_bits(images: np.ndarray, q: float = QUANTILE) -> np.ndarray:
    """``(N, H, W)`` pixels -> ``(N, H, W)`` uint8, 255 where a pixel is above its image's
    ``q``-quantile (module docstring), else 0."""
    if not 0.0 <= q <= 1.0:
        raise UsageError(f"quantile must lie in [0, 1], not {q!r}")
    x = np.asarray(images)
    flat = x.reshape(len(x), -1).astype(np.float64)
    t = np.quantile(flat, q, axis=1, method="linear")  # (N,)
    return np.where(flat > t[:, None], 255, 0).astype(np.uint8).reshape(x.shape)


def quantile_bits_reference(images: np.ndarray, q: float = QUANTILE) -> np.ndarray:
    """The same, image by image: sort, interpolate at ``h = q (P - 1)``, compare."""
    x = np.asarray(images)
    out = np.zeros(x.shape, dtype=np.uint8)
    for i, img in enumerate(x):
        v = sorted(float(p) for p in img.reshape(-1))
        h = q * (len(v) - 1)
        lo = int(np.floor(h))
        hi = min(lo + 1, len(v) - 1)
        t = v[lo] + (h - lo) * (v[hi] - v[lo])
        out[i] = np.where(img.astype(np.float64) > t, 255, 0)
    return out
