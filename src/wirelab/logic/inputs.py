"""The input encoding of a `LogicNet` (`ModelSpec` input fields): crop, pruning, real inputs.

Raw inputs are features ``x`` ``(B, F)`` in [0, 1] (an ``H x W`` image flattened row-major,
``F = H W``). They become bits and then the selection the first logic layer reads:

    bits[f T + t] = x[f] > thr[f, t]                      (B, F T)   `Binarize`
    read = bits[input_bits]                               (B, K)     ``input_bits`` (K,)

- ``crop = c``: the centre ``c x c`` window, ``y0 = (H - c) // 2`` (the 2022 paper's 20 x 20
  MNIST): bit ``((y0 + i) W + x0 + j) T + t`` for ``(i, j, t)`` in row-major order, the
  ``(H, W, C)`` layout a convolution expects;
- ``prune = p``: bits that are 1 in fewer than ``p`` or more than ``1 - p`` of the *training*
  images (never the validation or test images) are dropped (dense models only);
- ``inputs = "real"``: in the training modes (``soft``, ``st``) each read bit is relaxed to the
  piecewise-linear ramp ``r(x) = x / (2 thr)`` for ``x <= thr``, ``1/2 + (x - thr) / (2 (1 - thr))``
  above (``r(x) = x`` for ``thr = 1/2``, difflogic's real-valued pixels); the ``hard`` mode and the
  discrete network always threshold.

The selection is a fixed index map: `LogicNet.discretize` rewrites the first layer's input
indices into raw bit indices, so a `DiscreteLogicNet` keeps its ``(F, T)`` thresholds over the
raw features and the C, Verilog and FPGA back ends take the raw image unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from wirelab.errors import UsageError
from wirelab.logic.layers import Binarize
from wirelab.logic.spec import ModelSpec

SpecLike = ModelSpec | Mapping[str, Any]  # a spec, or its dict form (`ModelSpec.from_dict`)


def make_binarize(spec: SpecLike) -> Binarize:
    """The thresholds ``(F, T)`` of a spec over the raw features."""
    spec = ModelSpec.from_dict(spec)
    features = int(np.prod(spec.input_shape))
    if spec.binarize == "fixed":
        return Binarize.fixed(features, spec.threshold)
    return Binarize.thermometer(features, spec.levels)


def crop_bits(shape: Sequence[int], crop: int, levels: int) -> np.ndarray:
    """Raw bit indices ``(crop * crop * levels,)`` of the centre window, in ``(i, j, t)`` order."""
    h, w = shape
    y0, x0 = (h - crop) // 2, (w - crop) // 2
    i, j, t = np.meshgrid(np.arange(crop), np.arange(crop), np.arange(levels), indexing="ij")
    return (((y0 + i) * w + (x0 + j)) * levels + t).reshape(-1).astype(np.int64)


def input_selection(spec: SpecLike, levels: int) -> torch.Tensor | None:
    """The ``(K,)`` raw bits the first layer reads, or ``None`` for all of them."""
    spec = ModelSpec.from_dict(spec)
    total = int(np.prod(spec.input_shape)) * levels
    if spec.input_bits is not None:
        sel = np.asarray(spec.input_bits, dtype=np.int64)
        if sel.ndim != 1 or len(np.unique(sel)) != len(sel) or len(sel) < 2:
            raise UsageError("input_bits must list at least 2 distinct input bits")
        if sel.min() < 0 or sel.max() >= total:
            raise UsageError(f"input_bits must lie in [0, {total})")
        return torch.from_numpy(sel)
    if spec.prune > 0:
        raise UsageError("prune needs input_bits chosen from the training images (select_inputs)")
    if spec.crop is not None:
        return torch.from_numpy(crop_bits(spec.input_shape, spec.crop, levels))
    return None


def bit_activity(spec: SpecLike, x: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """Fraction of the images ``x`` ``(N, ...)`` in which each raw bit is 1: ``(F T,)``."""
    thr = make_binarize(spec).thresholds.numpy()  # (F, T) float32, as the model compares
    x = np.asarray(x, dtype=np.float32).reshape(len(x), -1)
    ones = np.zeros(thr.size, dtype=np.int64)
    for i in range(0, len(x), chunk):
        ones += (x[i : i + chunk, :, None] > thr[None]).reshape(-1, thr.size).sum(0)
    return ones / max(1, len(x))


def select_inputs(spec: SpecLike, x_train: np.ndarray) -> list[int] | None:
    """``input_bits`` for a spec whose ``prune > 0``: the crop (or all bits) without the bits that
    are nearly constant on the training images ``x_train``; ``None`` when nothing is pruned."""
    s = ModelSpec.from_dict(spec)
    if s.prune <= 0 or s.input_bits is not None:
        return None if s.input_bits is None else list(s.input_bits)
    levels = int(make_binarize(s).thresholds.shape[1])
    base = input_selection(s.replace(prune=0.0), levels)
    idx = base.numpy() if base is not None else np.arange(int(np.prod(s.input_shape)) * levels)
    frac = bit_activity(s, x_train)[idx]
    keep = idx[(frac >= s.prune) & (frac <= 1.0 - s.prune)]
    if len(keep) < 2:
        raise UsageError(f"prune {s.prune:g} leaves {len(keep)} input bits; lower it")
    return [int(v) for v in keep]
