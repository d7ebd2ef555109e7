"""`LogicNet`: binarisation -> logic layers -> GroupSum, built from a `ModelSpec`, discretisable.

A spec is a `wirelab.logic.spec.ModelSpec`, or its dict form (the ``model`` table of a recipe)::

    {"input_shape": [28, 28], "binarize": "fixed" | "thermometer", "levels": 1, "threshold": 0.5,
     "crop": null | 20, "prune": 0.0, "inputs": "binary" | "real", "input_bits": null | [...],
     "conv": [{"channels": 16, "kernel": 3, "depth": 3, "pool": true}, ...],   # optional
     "dense": [8000, 8000],
     "connections": "unique" | "random" | "learned" | "topk" | "dirac" | "dirac-k",
     "candidates": 16, "connection_tau": 1.0,       # learned connections (`wirelab.logic.learned`)
     "rewire_every": 100,                           # topk: re-select (`wirelab.logic.topk`)
     "gate_param": "softmax" | "light",             # 16 logits or 4 truth-table logits per gate
     "init": "residual", "classes": 10, "tau": 10.0, "seed": 0,
     "group_tau": "fixed" | "adaptive"}             # `wirelab.logic.adaptive_tau`

`ModelSpec` fills in every default, so a spec alone rebuilds the same network. The
input encoding (`wirelab.logic.inputs`): raw features ``(B, F)`` -> bits ``(B, F * T)`` -> the
selected bits ``input_bits`` ``(K,)`` (centre crop, pruned near-constant bits), which the first
logic layer reads; ``inputs="real"`` trains on the relaxed bits (difflogic's real-valued pixels).

``forward(x, mode)`` maps raw images ``(B, H, W)`` or features ``(B, F)`` in [0, 1] to class
scores ``(B, classes)``; ``mode`` is ``soft`` (training relaxation), ``st`` (straight-through) or
``hard`` (the discrete network, exactly what `discretize` returns, from thresholded raw inputs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic.adaptive_tau import AdaptiveGroupSum
from wirelab.logic.conv import LogicConv2d, OrPool2d
from wirelab.logic.dirac import WholeInputLogicDense
from wirelab.logic.dirac_k import DiracCandidatesDense
from wirelab.logic.discrete import DiscreteLayer, DiscreteLogicNet
from wirelab.logic.gates import NAMES, PASS_A, PASS_B
from wirelab.logic.inputs import SpecLike, input_selection, make_binarize
from wirelab.logic.layers import GroupSum, LogicDense
from wirelab.logic.learned import LearnedLogicDense
from wirelab.logic.spec import DEFAULT_SPEC, ModelSpec, resolve_spec
from wirelab.logic.topk import TopKLogicDense

__all__ = ["DEFAULT_SPEC", "LogicNet", "ModelSpec", "diagnostics", "resolve_spec"]


class LogicNet(nn.Module):
    """The whole classifier of a `ModelSpec` (or its dict form): ``(B, H, W)`` or ``(B, F)``
    raw inputs in [0, 1] -> class scores ``(B, classes)``; ``forward(x, mode)``, see the module
    docstring. ``model_spec`` is the spec, ``spec`` its dict form (what ``model.pt`` saves)."""

    input_bits: torch.Tensor | None  # (K,) buffer: the raw input bits the first layer reads

    def __init__(self, spec: SpecLike) -> None:
        super().__init__()
        s = ModelSpec.from_dict(spec)
        self.model_spec = s
        self.spec = s.to_dict()
        self.binarize = make_binarize(s)
        levels = int(self.binarize.thresholds.shape[1])
        self.relaxed = s.inputs == "real"
        sel = input_selection(s, levels)
        self.register_buffer("input_bits", sel)
        layers: list[nn.Module] = []
        img: tuple[int, int, int] | None = None
        if s.conv:
            side = s.input_shape if s.crop is None else (s.crop, s.crop)
            img = (side[0], side[1], levels)
        for i, block in enumerate(s.conv):
            assert img is not None
            conv = LogicConv2d(
                img,
                block.channels,
                block.kernel,
                block.depth,
                init=s.init,
                seed=s.seed * 1000 + i,
                gate_param=s.gate_param,
            )
            layers.append(conv)
            img = conv.out_shape
            if block.pool:
                pool = OrPool2d(img)
                layers.append(pool)
                img = pool.out_shape
        if img is not None:
            width = int(np.prod(img))
        else:
            width = self.binarize.out_features if sel is None else int(sel.shape[0])
        for i, n in enumerate(s.dense):
            layers.append(_dense(s, width, n, s.seed * 1000 + 500 + i))
            width = n
        if not s.dense and not s.conv:
            raise UsageError("a model needs at least one logic layer")
        self.layers = nn.ModuleList(layers)
        if width % s.classes:
            raise UsageError(
                f"the last layer's {width} gates do not split into {s.classes} classes"
            )
        self.head: GroupSum | AdaptiveGroupSum = HEADS[s.group_tau](s, width)

    @property
    def num_classes(self) -> int:
        return self.head.k

    def encode(self, x: torch.Tensor, mode: str = "soft") -> torch.Tensor:
        """Raw inputs -> the bits the first layer reads, feature-major ``(K, B)``: thresholded in
        ``hard`` mode, relaxed in the training modes when ``inputs="real"``."""
        relaxed = self.relaxed and mode != "hard"
        h = self.binarize.relaxed(x) if relaxed else self.binarize(x)  # (B, F T)
        if self.input_bits is not None:
            h = h.index_select(1, self.input_bits)  # (B, K)
        return h.t().contiguous()  # (K, B)

    def forward(self, x: torch.Tensor, mode: str = "soft") -> torch.Tensor:
        h = self.encode(x, mode)
        for layer in self.layers:
            h = layer(h, mode)
        return self.head(h)  # (B, classes)

    @torch.no_grad()
    def discretize(self) -> DiscreteLogicNet:
        """The argmax gate of every neuron, as a pure Boolean `DiscreteLogicNet`."""
        out: list[DiscreteLayer] = []
        for layer in self.layers:
            if isinstance(layer, (LogicDense, LearnedLogicDense)):
                a, b = layer.wiring()
                out.append(DiscreteLayer(a.cpu().numpy(), b.cpu().numpy(), layer.gates()))
            else:
                out.extend(layer.discretize())  # type: ignore[operator]
        if self.input_bits is not None and out:  # the first layer reads raw input bits
            sel = self.input_bits.cpu().numpy()
            out[0] = DiscreteLayer(sel[out[0].a], sel[out[0].b], out[0].gate)
        return DiscreteLogicNet(
            self.binarize.thresholds.cpu().double().numpy(),
            tuple(out),
            self.head.k,
            self.head.tau,
            {"spec": self.spec},
        )


def _learned(s: ModelSpec, width: int, n: int, seed: int) -> nn.Module:
    tau, k = s.connection_tau, s.candidates
    return LearnedLogicDense(width, n, k, tau, s.init, seed, gate_param=s.gate_param)


def _topk(s: ModelSpec, width: int, n: int, seed: int) -> nn.Module:
    tau, k, every = s.connection_tau, s.candidates, s.rewire_every
    return TopKLogicDense(
        width, n, k, tau, s.init, seed, gate_param=s.gate_param, rewire_every=every
    )


def _fixed(s: ModelSpec, width: int, n: int, seed: int) -> nn.Module:
    return LogicDense(width, n, s.connections, s.init, seed, gate_param=s.gate_param)


def _dirac(s: ModelSpec, width: int, n: int, seed: int) -> nn.Module:
    return WholeInputLogicDense(width, n, s.connection_tau, s.init, seed, gate_param=s.gate_param)


def _dirac_k(s: ModelSpec, width: int, n: int, seed: int) -> nn.Module:
    tau, k = s.connection_tau, s.candidates
    return DiracCandidatesDense(width, n, k, tau, s.init, seed, gate_param=s.gate_param)


# connections -> dense layer builder (spec, input width, gates, seed)
DENSE_LAYERS = {
    "random": _fixed,
    "unique": _fixed,
    "learned": _learned,
    "topk": _topk,
    "dirac": _dirac,
    "dirac-k": _dirac_k,
}
# group_tau -> GroupSum head builder (spec, last layer's width)
HEADS: dict[str, Callable[[ModelSpec, int], GroupSum | AdaptiveGroupSum]] = {
    "fixed": lambda s, width: GroupSum(s.classes, s.tau),
    "adaptive": lambda s, width: AdaptiveGroupSum(s.classes, width),
}


def _dense(s: ModelSpec, width: int, n: int, seed: int) -> nn.Module:
    """A dense layer of a resolved spec: fixed (random, unique), learned or Top-K connections."""
    return DENSE_LAYERS[s.connections](s, width, n, seed)


def diagnostics(net: DiscreteLogicNet) -> dict[str, Any]:
    """Gate count, gate-type histogram, pass-through fraction and gates nothing reads.

    A gate is *unused* when no gate of the next layer reads it (the last layer feeds GroupSum, so
    all of its gates count as used); the count is not transitive (the circuit passes remove
    whole dead cones).
    """
    hist: Counter[str] = Counter()
    unused = 0
    for i, layer in enumerate(net.layers):
        hist.update(NAMES[g] for g in layer.gate.tolist())
        if i + 1 < len(net.layers):
            nxt = net.layers[i + 1]
            read = np.zeros(layer.size, dtype=bool)
            read[nxt.a] = True
            read[nxt.b] = True
            unused += int((~read).sum())
    total = net.gates
    passes = hist[NAMES[PASS_A]] + hist[NAMES[PASS_B]]
    return {
        "gates": total,
        "gates_by_type": {name: hist[name] for name in NAMES},
        "pass_through_fraction": passes / total if total else 0.0,
        "unused_gates": unused,
        "layers": [layer.size for layer in net.layers],
    }
