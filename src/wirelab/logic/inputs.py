"""The model spec and the input encoding of a `LogicNet`: defaults, crop, pruning, real inputs.

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

import math
from typing import Any

import numpy as np
import torch

from wirelab.errors import UsageError
from wirelab.logic.layers import Binarize

DEFAULT_SPEC: dict[str, Any] = {
    "input_shape": [28, 28],
    "binarize": "fixed",
    "levels": 1,
    "threshold": 0.5,
    "crop": None,
    "prune": 0.0,
    "inputs": "binary",
    "input_bits": None,
    "conv": [],
    "dense": [1000],
    "connections": "unique",
    "candidates": 16,
    "connection_tau": 1.0,
    "rewire_every": 100,
    "gate_param": "softmax",
    "init": "gaussian",
    "classes": 10,
    "tau": 5.0,
    "seed": 0,
}
# keys added after the first checkpoints were written: a saved spec without them used these
ADDED_DEFAULTS = {
    k: DEFAULT_SPEC[k] for k in ("candidates", "connection_tau", "gate_param", "rewire_every")
}
CONV_DEFAULTS: dict[str, Any] = {"kernel": 3, "depth": 3, "pool": False}
CHOICES = {
    "binarize": ("fixed", "thermometer"),
    "inputs": ("binary", "real"),
    "connections": ("random", "unique", "learned", "topk"),
    "gate_param": ("softmax", "light"),
    "init": ("gaussian", "residual"),
}


def _number(s: dict[str, Any], key: str, lo: float, hi: float = math.inf) -> float:
    try:
        v = float(s[key])
    except (TypeError, ValueError):
        raise UsageError(f"model option {key} must be a number, not {s[key]!r}") from None
    if not (math.isfinite(v) and lo <= v <= hi):
        raise UsageError(f"model option {key} = {s[key]!r} is out of range [{lo:g}, {hi:g}]")
    return v


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
        raise UsageError(f"{what} must be a whole number, not {value!r}")
    if value < 1:
        raise UsageError(f"{what} must be at least 1, not {value!r}")
    return int(value)


def _conv_block(block: Any) -> dict[str, Any]:
    if not isinstance(block, dict) or "channels" not in block:
        raise UsageError(f"a conv block needs at least 'channels', got {block!r}")
    unknown = set(block) - {"channels", *CONV_DEFAULTS}
    if unknown:
        raise UsageError(f"unknown conv block options: {', '.join(sorted(unknown))}")
    b = {"channels": block["channels"], **CONV_DEFAULTS, **block}
    return {
        "channels": _count(b["channels"], "conv channels"),
        "kernel": _count(b["kernel"], "conv kernel"),
        "depth": _count(b["depth"], "conv depth"),
        "pool": bool(b["pool"]),
    }


def resolve_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """Every option filled in, typed and checked; raises `UsageError` with one line."""
    unknown = set(spec) - set(DEFAULT_SPEC)
    if unknown:
        raise UsageError(f"unknown model options: {', '.join(sorted(unknown))}")
    s = {**DEFAULT_SPEC, **spec}
    for key, choices in CHOICES.items():
        if s[key] not in choices:
            raise UsageError(f"model option {key} = {s[key]!r}; use one of {', '.join(choices)}")
    out: dict[str, Any] = {
        "input_shape": [_count(v, "input_shape") for v in s["input_shape"]],
        "binarize": s["binarize"],
        "levels": _count(s["levels"], "levels"),
        "threshold": _number(s, "threshold", 0.0, 1.0),
        "crop": None if s["crop"] is None else _count(s["crop"], "crop"),
        "prune": _number(s, "prune", 0.0, 0.4999),
        "inputs": s["inputs"],
        "input_bits": None if s["input_bits"] is None else [int(v) for v in s["input_bits"]],
        "conv": [_conv_block(b) for b in s["conv"]],
        "dense": [_count(n, "dense width") for n in s["dense"]],
        "connections": s["connections"],
        "candidates": _count(s["candidates"], "candidates"),
        "connection_tau": _number(s, "connection_tau", 1e-6),
        "rewire_every": _count(s["rewire_every"], "rewire_every"),
        "gate_param": s["gate_param"],
        "init": s["init"],
        "classes": _count(s["classes"], "classes"),
        "tau": _number(s, "tau", 1e-12),
        "seed": int(s["seed"]),
    }
    shape = out["input_shape"]
    if out["crop"] is not None and (len(shape) != 2 or out["crop"] > min(shape)):
        raise UsageError(f"crop {out['crop']} does not fit the input shape {shape}")
    if out["conv"] and (out["prune"] > 0 or out["input_bits"] is not None):
        raise UsageError("input pruning needs a dense model (a convolution reads an image grid)")
    if out["inputs"] == "real" and out["binarize"] == "fixed" and not 0 < out["threshold"] < 1:
        raise UsageError("real-valued inputs need a threshold strictly between 0 and 1")
    return out


def make_binarize(spec: dict[str, Any]) -> Binarize:
    """The thresholds ``(F, T)`` of a resolved spec over the raw features."""
    features = int(np.prod(spec["input_shape"]))
    if spec["binarize"] == "fixed":
        return Binarize.fixed(features, float(spec["threshold"]))
    return Binarize.thermometer(features, int(spec["levels"]))


def crop_bits(shape: list[int], crop: int, levels: int) -> np.ndarray:
    """Raw bit indices ``(crop * crop * levels,)`` of the centre window, in ``(i, j, t)`` order."""
    h, w = shape
    y0, x0 = (h - crop) // 2, (w - crop) // 2
    i, j, t = np.meshgrid(np.arange(crop), np.arange(crop), np.arange(levels), indexing="ij")
    return (((y0 + i) * w + (x0 + j)) * levels + t).reshape(-1).astype(np.int64)


def input_selection(spec: dict[str, Any], levels: int) -> torch.Tensor | None:
    """The ``(K,)`` raw bits the first layer reads, or ``None`` for all of them."""
    total = int(np.prod(spec["input_shape"])) * levels
    if spec["input_bits"] is not None:
        sel = np.asarray(spec["input_bits"], dtype=np.int64)
        if sel.ndim != 1 or len(np.unique(sel)) != len(sel) or len(sel) < 2:
            raise UsageError("input_bits must list at least 2 distinct input bits")
        if sel.min() < 0 or sel.max() >= total:
            raise UsageError(f"input_bits must lie in [0, {total})")
        return torch.from_numpy(sel)
    if spec["prune"] > 0:
        raise UsageError("prune needs input_bits chosen from the training images (select_inputs)")
    if spec["crop"] is not None:
        return torch.from_numpy(crop_bits(spec["input_shape"], spec["crop"], levels))
    return None


def bit_activity(spec: dict[str, Any], x: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """Fraction of the images ``x`` ``(N, ...)`` in which each raw bit is 1: ``(F T,)``."""
    thr = make_binarize(spec).thresholds.numpy()  # (F, T) float32, as the model compares
    x = np.asarray(x, dtype=np.float32).reshape(len(x), -1)
    ones = np.zeros(thr.size, dtype=np.int64)
    for i in range(0, len(x), chunk):
        ones += (x[i : i + chunk, :, None] > thr[None]).reshape(-1, thr.size).sum(0)
    return ones / max(1, len(x))


def select_inputs(spec: dict[str, Any], x_train: np.ndarray) -> list[int] | None:
    """``input_bits`` for a spec whose ``prune > 0``: the crop (or all bits) without the bits that
    are nearly constant on the training images ``x_train``; ``None`` when nothing is pruned."""
    s = resolve_spec(spec)
    if s["prune"] <= 0 or s["input_bits"] is not None:
        return s["input_bits"]
    levels = int(make_binarize(s).thresholds.shape[1])
    base = input_selection({**s, "prune": 0.0}, levels)
    idx = base.numpy() if base is not None else np.arange(int(np.prod(s["input_shape"])) * levels)
    frac = bit_activity(s, x_train)[idx]
    keep = idx[(frac >= s["prune"]) & (frac <= 1.0 - s["prune"])]
    if len(keep) < 2:
        raise UsageError(f"prune {s['prune']:g} leaves {len(keep)} input bits; lower it")
    return [int(v) for v in keep]
