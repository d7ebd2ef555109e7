"""The adaptive GroupSum temperature (``group_tau = "adaptive"``): tau follows the class sums.

After LILogicNet's public code ("adaptive variance"; Fojcik, Zioma, Armaitis 2025,
arXiv:2511.12340). With ``m`` outputs per class, the class sums of training step ``t``
``S_t = popcount`` ``(B, k)`` and ``s_t = std(S_t)`` (over all ``B k`` entries, unbiased), the
temperature the step divides by is

    tau_1 = min(sqrt(m), m / 6)
    tau_t = min((1 - r) tau_{t-1} + r s_t / (4 g), m / 6)        (t >= 2)

with rate ``r = ADAPT_RATE = 0.03`` and target ``g = SCALE_TARGET = 1.5``; the class scores are
``S_t / tau_t`` (no gradient through ``tau``). Only training forwards (the module in train mode)
move ``tau``; validation, test and the discrete network divide by the current value, which
never changes an argmax. ``tau`` and the step count are buffers, so checkpoints resume the
schedule exactly and the best weights carry the ``tau`` they were trained with (the discrete
net's ``tau``). The model's ``tau`` option is not read.

`adaptive_tau_reference` is the rule as a plain loop over the steps' ``s_t``, tested equal.

Example:
    >>> head = AdaptiveGroupSum(10, 1000)  # 100 outputs per class: tau starts at 10
    >>> head(torch.rand(1000, 32)).shape, round(head.tau, 4)
    (torch.Size([32, 10]), 10.0)
"""

from __future__ import annotations

import math

import torch
from torch import nn

from wirelab.errors import UsageError

ADAPT_RATE = 0.03  # r: the fraction of the way to the target tau moved each step
SCALE_TARGET = 1.5  # g: the target tau is std(class sums) / (4 g)
CAP_DIVISOR = 6.0  # tau never exceeds outputs per class / 6


def adaptive_tau_reference(stds: list[float], per_class: int) -> list[float]:
    """The ``tau`` of each training step, given each step's ``std(S_t)`` (module docstring)."""
    cap = per_class / CAP_DIVISOR
    taus: list[float] = []
    for t, s in enumerate(stds):
        if t == 0:
            tau = min(math.sqrt(per_class), cap)
        else:
            tau = min((1 - ADAPT_RATE) * taus[-1] + ADAPT_RATE * s / (4 * SCALE_TARGET), cap)
        taus.append(tau)
    return taus


class AdaptiveGroupSum(nn.Module):
    """``(n, B)`` -> ``(B, k)``: class ``i`` scores the sum of wires ``[i n/k, (i+1) n/k)``
    divided by the adaptive temperature (module docstring); ``tau`` is its current value."""

    tau_value: torch.Tensor  # () float64 buffer
    steps: torch.Tensor  # () int64 buffer: training forwards so far

    def __init__(self, k: int, outputs: int) -> None:
        super().__init__()
        if k < 1 or outputs < k or outputs % k:
            raise UsageError(f"{outputs} outputs do not split into {k} classes")
        self.k, self.per_class = int(k), outputs // k
        start = min(math.sqrt(self.per_class), self.per_class / CAP_DIVISOR)
        self.register_buffer("tau_value", torch.tensor(start, dtype=torch.float64))
        self.register_buffer("steps", torch.tensor(0, dtype=torch.int64))

    @property
    def tau(self) -> float:
        return float(self.tau_value)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, bsz = x.shape
        if n != self.k * self.per_class:
            raise UsageError(f"expected {self.k * self.per_class} outputs, got {n}")
        sums = x.reshape(self.k, self.per_class, bsz).sum(1).t()  # (B, k)
        if self.training:
            if int(self.steps) > 0:
                s = float(sums.detach().double().std())
                target = ADAPT_RATE * s / (4 * SCALE_TARGET)
                new = (1 - ADAPT_RATE) * self.tau + target
                self.tau_value.fill_(min(new, self.per_class / CAP_DIVISOR))
            self.steps += 1
        return sums / self.tau

    def extra_repr(self) -> str:
        return f"k={self.k}, adaptive tau={self.tau:.4g} after {int(self.steps)} steps"
