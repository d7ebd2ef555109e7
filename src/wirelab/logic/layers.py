"""Logic layers: input binarisation, `LogicDense`, `GroupSum`.

Convention: logic layers work on **feature-major** activations ``(N, B)`` (one row per wire, one
column per sample), so that gathering a neuron's inputs copies whole rows. `LogicNet` transposes
once after binarisation. Every layer's wiring is a registered buffer: its ``state_dict`` is the
complete model.

A layer's ``forward(x, mode)`` takes a mode of `wirelab.logic.forwards`: ``soft`` (the softmax
mixture), ``hard`` (the argmax gate: what the discrete network computes), or a hard forward with a
soft gradient (``st``, ``gumbel``, ``cage``).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic.forwards import get_forward
from wirelab.logic.functional import (
    LIGHT_WIDTH,
    gate_ids,
    gate_poly,
    light_reference,
    mixture_reference,
)
from wirelab.logic.gates import NUM_GATES, PASS_A, TRUTH
from wirelab.logic.kernels import gather_gate

GATE_PARAMS = ("softmax", "light")
LIGHT_RESIDUAL = 3.0  # light residual init: z = +-3 on gate A's truth table (sigmoid 0.95)


def coeffs_for(weight: torch.Tensor, mode: str) -> torch.Tensor:
    """Per-neuron coefficients ``(..., 4)`` of gate weights ``(..., 16)`` (softmax logits) or
    ``(..., 4)`` (light) for a forward ``mode`` (`wirelab.logic.forwards`)."""
    return get_forward(mode).coeffs(weight)


def init_logits(
    shape: tuple[int, ...], init: str, generator: torch.Generator, gate_param: str = "softmax"
) -> torch.Tensor:
    """Gate weights ``(*shape, 16)`` (``softmax``) or ``(*shape, 4)`` (``light``).

    ``gaussian``: N(0, 1) (Petersen et al. 2022). ``residual``: the pass-through gate A: logit 5
    on A, 0 elsewhere (Petersen et al. 2024, arXiv:2411.04732), or for ``light`` the truth table
    of A at ``+-LIGHT_RESIDUAL`` (``z = (-3, -3, 3, 3)``, a soft ``y ~ 0.05 + 0.9 a``).
    """
    if gate_param not in GATE_PARAMS:
        raise UsageError(f"unknown gate_param {gate_param!r}; use one of {GATE_PARAMS}")
    width = NUM_GATES if gate_param == "softmax" else LIGHT_WIDTH
    if init == "gaussian":
        return torch.randn(*shape, width, generator=generator)
    if init == "residual":
        if gate_param == "light":
            z = LIGHT_RESIDUAL * (2 * torch.from_numpy(TRUTH[PASS_A]).float() - 1)
            return z.expand(*shape, LIGHT_WIDTH).clone()
        w = torch.zeros(*shape, NUM_GATES)
        w[..., PASS_A] = 5.0
        return w
    raise UsageError(f"unknown gate init {init!r}; use 'gaussian' or 'residual'")


def reference_gate(
    xa: torch.Tensor, xb: torch.Tensor, weight: torch.Tensor, mode: str
) -> torch.Tensor:
    """The readable gate: 16-way mixture or light expectation (soft), else the polynomial."""
    if mode != "soft":
        return gate_poly(xa, xb, coeffs_for(weight, mode))
    if weight.shape[-1] == LIGHT_WIDTH:
        return light_reference(xa, xb, weight)
    return mixture_reference(xa, xb, weight)


def make_connections(
    in_features: int, out_features: int, kind: str, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Fixed wiring ``a, b`` (out,) int64.

    ``random``: both inputs uniform, ``a != b``. ``unique``: the inputs are dealt from repeated
    random permutations, so every input is used (when ``2 * out >= in``) and input counts differ by
    at most one; pairs with ``a == b`` are repaired by swapping.
    """
    if in_features < 2:
        raise UsageError("a logic layer needs at least 2 inputs")
    if kind == "random":
        a = torch.randint(0, in_features, (out_features,), generator=generator)
        off = torch.randint(1, in_features, (out_features,), generator=generator)
        return a, (a + off) % in_features
    if kind == "unique":
        reps = math.ceil(2 * out_features / in_features)
        perm = torch.cat([torch.randperm(in_features, generator=generator) for _ in range(reps)])
        perm = perm[: 2 * out_features]
        a, b = perm[:out_features].clone(), perm[out_features:].clone()
        bad = torch.nonzero(a == b).flatten().tolist()
        for j in bad:  # swap b_j with a partner whose swap removes both clashes
            for k in torch.randperm(out_features, generator=generator).tolist():
                if b[k] != a[j] and b[j] != a[k]:
                    b[j], b[k] = b[k].clone(), b[j].clone()
                    break
        return a, b
    raise UsageError(f"unknown connections {kind!r}; use 'random' or 'unique'")


class Binarize(nn.Module):
    """Input binarisation, the explicit first layer: ``(B, F)`` -> ``(B, F * T)`` bits as floats.

    Bit ``f * T + t`` is ``x[f] > thresholds[f, t]`` (no gradient: the input is data).
    ``thermometer(F, T)`` uses ``T`` evenly spaced levels ``(t + 1) / (T + 1)`` on ``[0, 1]``.
    Images ``(B, H, W)`` are flattened first, so it is the input step of a ``Sequential``.

    Example:
        >>> Binarize.fixed(64, threshold=0.5)(torch.rand(8, 8, 8)).shape
        torch.Size([8, 64])
        >>> Binarize.thermometer(64, levels=3)(torch.rand(8, 64)).shape
        torch.Size([8, 192])
    """

    thresholds: torch.Tensor  # (F, T) buffer

    def __init__(self, thresholds: torch.Tensor) -> None:
        super().__init__()
        if thresholds.ndim != 2:
            raise UsageError("thresholds must have shape (features, levels)")
        self.register_buffer("thresholds", thresholds.to(torch.float32))
        self.ramp_width = 1.0  # `relaxed`'s width w (annealed by `wirelab.logic.anneal`)

    @classmethod
    def fixed(cls, features: int, threshold: float = 0.5) -> Binarize:
        return cls(torch.full((features, 1), float(threshold)))

    @classmethod
    def thermometer(cls, features: int, levels: int) -> Binarize:
        t = torch.arange(1, levels + 1, dtype=torch.float32) / (levels + 1)
        return cls(t.repeat(features, 1))

    @property
    def in_features(self) -> int:
        return int(self.thresholds.shape[0])

    @property
    def out_features(self) -> int:
        return int(self.thresholds.numel())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.reshape(len(x), -1)  # (B, F)
        if x.shape[1] != self.in_features:
            raise UsageError(f"expected {self.in_features} input features, got {x.shape[1]}")
        return (x[:, :, None] > self.thresholds[None]).reshape(len(x), -1).float()  # (B, F*T)

    def relaxed(self, x: torch.Tensor) -> torch.Tensor:
        """Real-valued bits for training: the ramp through ``(0, 0), (thr, 1/2), (1, 1)``.

        ``r(x) = x / (2 thr)`` below the threshold, ``1/2 + (x - thr) / (2 (1 - thr))`` above,
        clipped to [0, 1]: ``r(x) = x`` for ``thr = 1/2``, and ``r(x) > 1/2`` exactly when the
        hard bit is 1. ``(B, F)`` -> ``(B, F * T)``; needs thresholds strictly inside (0, 1).
        With ``ramp_width`` ``w < 1`` the ramp is steepened about 1/2:
        ``clip(1/2 + (r(x) - 1/2) / w, 0, 1)`` (the hard bit as ``w -> 0``).
        """
        x = x.reshape(len(x), -1)[:, :, None]  # (B, F, 1)
        if x.shape[1] != self.in_features:
            raise UsageError(f"expected {self.in_features} input features, got {x.shape[1]}")
        thr = self.thresholds[None]  # (1, F, T)
        below = x / (2 * thr)
        above = 0.5 + (x - thr) / (2 * (1 - thr))
        r = torch.where(x > thr, above, below)
        if self.ramp_width != 1.0:
            r = 0.5 + (r - 0.5) / self.ramp_width
        return r.clamp(0.0, 1.0).reshape(len(x), -1)


class LogicDense(nn.Module):
    """``out_features`` learned 2-input gates on fixed random wiring: ``(in, B)`` -> ``(out, B)``.

    ``y_j = sum_g softmax(w_j)_g f_g(x[a_j], x[b_j])`` computed in the 4-coefficient form by the
    fused kernel (`wirelab.logic.kernels`); ``impl="reference"`` runs the 16-way mixture instead.
    ``gate_param="light"``: ``w_j`` (4,) and ``c_j = sigmoid(w_j) @ TRUTH_TO_COEFFS``.
    """

    a: torch.Tensor  # (out,) buffer
    b: torch.Tensor  # (out,) buffer

    def __init__(
        self,
        in_features: int,
        out_features: int,
        connections: str = "random",
        init: str = "gaussian",
        seed: int = 0,
        impl: str = "fast",
        gate_param: str = "softmax",
    ) -> None:
        super().__init__()
        if out_features < 1:
            raise UsageError("a logic layer needs at least one gate")
        gen = torch.Generator().manual_seed(seed)
        a, b = make_connections(in_features, out_features, connections, gen)
        self.in_features, self.out_features, self.impl = in_features, out_features, impl
        self.register_buffer("a", a)
        self.register_buffer("b", b)
        # (out, 16) softmax logits or (out, 4) light parameters
        self.weight = nn.Parameter(init_logits((out_features,), init, gen, gate_param))

    def forward(self, x: torch.Tensor, mode: str = "soft") -> torch.Tensor:
        if x.shape[0] != self.in_features:
            raise UsageError(f"LogicDense expected {self.in_features} input rows, got {x.shape[0]}")
        if self.impl == "reference":
            return reference_gate(x[self.a], x[self.b], self.weight, mode)
        return gather_gate(x, self.a, self.b, coeffs_for(self.weight, mode))  # (out, B)

    def wiring(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The inputs ``a, b`` ``(out,)`` of every gate."""
        return self.a, self.b

    def gates(self) -> np.ndarray:
        """Discrete gate per neuron ``(out,)`` uint8 (argmax logit, or nearest light gate)."""
        return gate_ids(self.weight).cpu().numpy().astype(np.uint8)

    def extra_repr(self) -> str:
        return f"{self.in_features} -> {self.out_features}"


class GroupSum(nn.Module):
    """``(n, B)`` -> ``(B, k)``: class ``i`` scores the popcount of wires ``[i n/k, (i+1) n/k)``,
    divided by the temperature ``tau``."""

    def __init__(self, k: int, tau: float = 1.0) -> None:
        super().__init__()
        if k < 1 or tau <= 0:
            raise UsageError("GroupSum needs k >= 1 and tau > 0")
        self.k, self.tau = int(k), float(tau)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, bsz = x.shape
        if n % self.k:
            raise UsageError(f"{n} outputs do not split into {self.k} groups")
        return x.reshape(self.k, n // self.k, bsz).sum(1).t() / self.tau  # (B, k)

    def extra_repr(self) -> str:
        return f"k={self.k}, tau={self.tau}"
