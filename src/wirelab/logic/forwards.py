"""Forward modes: how a discrete choice (a neuron's gate, a gate input's wire) is made in a pass.

Every discrete choice of a logic network is a categorical over options with logits ``z``: the 16
gates of a neuron (``w`` ``(n, 16)``, softmax temperature 1), or the ``K`` candidate wires of a
gate input (connection logits ``l`` ``(n, K)`` at the connection temperature ``T``, ``z = l / T``).
A forward mode says which value the pass uses and which gradient flows back:

=========  ==============================  ==========================================
 mode       forward value                   backward (gradient of)
=========  ==============================  ==========================================
 soft       softmax(z) mixture              the same
 hard       onehot(argmax z)                none (the discrete network)
 st         onehot(argmax z)                softmax(z)           (Petersen et al. 2022)
 gumbel     onehot(argmax (z + g))          softmax(z + g)       (Gumbel-ST)
 gumbel-    gates as ``gumbel``, wires as ``st`` (noise on the gate choices only, as in the
  gates     paper, whose wiring is fixed)
 cage       onehot(argmax z)                softmax(z / s)       (confidence-adaptive)
=========  ==============================  ==========================================

``gumbel``: Mind the Gap (Yousefi et al. 2025, arXiv:2506.07500): ``g ~ Gumbel(0, 1)`` drawn per
neuron (or gate input) and per step, shared by the batch; the forward samples a choice from
``softmax(z)`` and the backward is the Gumbel-softmax relaxation of that sample. Learned wires
start with equal logits, so ``gumbel`` first reads a uniformly random candidate per input at
every step; ``gumbel-gates`` keeps the noise on the gates alone.

``cage``: hard forward with a backward temperature adapted to the choice's confidence, after
CAGE (Kim 2026, arXiv:2603.14157: "align forward, adapt backward"). The rule here is our reading
of that idea (the paper's exact schedule was not available to us): with the margin
``m = z_(1) - z_(2)`` between the two largest logits, ``s = max(1, m / CAGE_MARGIN)`` per choice
(no gradient through ``s``), so a confident choice's backward softmax keeps its two best options
within a factor ``exp(CAGE_MARGIN)`` and its gradient does not vanish, while unsure choices keep
the plain straight-through gradient.

The light parametrisation (4 truth-table logits per neuron, `wirelab.logic.functional`) is 4
binary choices: ``gumbel`` adds logistic noise ``log u - log(1 - u)`` to each ``z`` (the binary
Gumbel trick), ``cage`` scales each ``z_i`` by ``s_i = max(1, |z_i| / CAGE_MARGIN)``.

Stochastic modes draw from torch's global generator; the training loop seeds it from the run's
seed and the step number, so a resumed run draws the same noise as one that never stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from wirelab.errors import UsageError
from wirelab.logic.functional import (
    LIGHT_WIDTH,
    TRUTH_TO_COEFFS,
    coeff_matrix,
    param_coeffs,
    truth_bits_to_gate,
)

CAGE_MARGIN = 2.0  # backward logit margin of a confident choice: top-2 odds at most e^2 ~ 7.4
Selection = tuple[torch.Tensor | None, torch.Tensor]  # (hard index (n,) or None, probs (n, K))


def gumbel_like(z: torch.Tensor) -> torch.Tensor:
    """Standard Gumbel noise ``-log(-log u)``, ``u ~ U(0, 1)``, shaped like ``z``."""
    u = torch.rand_like(z).clamp_(1e-12, 1.0 - 1e-7)
    return -torch.log(-torch.log(u))


def logistic_like(z: torch.Tensor) -> torch.Tensor:
    """Standard logistic noise ``log u - log(1 - u)`` (the difference of two Gumbels)."""
    u = torch.rand_like(z).clamp_(1e-12, 1.0 - 1e-7)
    return torch.log(u) - torch.log1p(-u)


def cage_scale(z: torch.Tensor) -> torch.Tensor:
    """``s = max(1, (z_(1) - z_(2)) / CAGE_MARGIN)`` per row of ``z`` ``(..., K)``, detached;
    ``(..., 1)``."""
    top2 = z.detach().topk(2, dim=-1).values
    return ((top2[..., :1] - top2[..., 1:]) / CAGE_MARGIN).clamp(min=1.0)


def _straight(hard: torch.Tensor, soft: torch.Tensor) -> torch.Tensor:
    """``hard`` values forward, ``soft``'s gradient backward."""
    return hard + (soft - soft.detach())


def _gate_coeffs_sampled(w: torch.Tensor, kind: str) -> torch.Tensor:
    """Coefficients ``(..., 4)`` of gate weights for ``gumbel`` or ``cage`` (module docstring)."""
    if w.shape[-1] == LIGHT_WIDTH:
        m = torch.as_tensor(TRUTH_TO_COEFFS, dtype=w.dtype, device=w.device)
        if kind == "gumbel":
            z = w + logistic_like(w)
            hard_bits = z.detach() > 0
        else:
            z = w / (w.detach().abs() / CAGE_MARGIN).clamp(min=1.0)
            hard_bits = w.detach() > 0
        hard = coeff_matrix(w)[truth_bits_to_gate(hard_bits)]
        return _straight(hard, torch.sigmoid(z) @ m)
    z = w + gumbel_like(w) if kind == "gumbel" else w / cage_scale(w)
    hard = coeff_matrix(w)[z.detach().argmax(dim=-1)]
    return _straight(hard, torch.softmax(z, dim=-1) @ coeff_matrix(w))


def _select_soft(logits: torch.Tensor, tau: float) -> Selection:
    return None, torch.softmax(logits / tau, dim=1)


def _select_st(logits: torch.Tensor, tau: float) -> Selection:
    return logits.detach().argmax(1), torch.softmax(logits / tau, dim=1)


def _select_gumbel(logits: torch.Tensor, tau: float) -> Selection:
    z = logits / tau + gumbel_like(logits)
    return z.detach().argmax(1), torch.softmax(z, dim=1)


def _select_cage(logits: torch.Tensor, tau: float) -> Selection:
    z = logits / tau
    return logits.detach().argmax(1), torch.softmax(z / cage_scale(z), dim=1)


@dataclass(frozen=True)
class Forward:
    """One forward mode: gate coefficients from gate weights ``(..., 16 | 4)`` -> ``(..., 4)``;
    a connection selection ``(logits (n, K), T)`` -> (hard index or None, probabilities);
    whether it draws noise; whether ``--forward`` may train with it; whether a learned wire's
    straight-through sends the soft selection's gradient to every candidate's input (``st``, as
    the recipes trained with it did: ``x[a] + (xa_soft - xa_soft.detach())``) or to the chosen
    wire alone (the fused ``onehot + (p - p.detach())`` form)."""

    coeffs: Callable[[torch.Tensor], torch.Tensor]
    select: Callable[[torch.Tensor, float], Selection]
    stochastic: bool = False
    trains: bool = True
    soft_wire_inputs: bool = False  # learned wires: every candidate's input gets the soft gradient


FORWARDS: dict[str, Forward] = {
    "soft": Forward(lambda w: param_coeffs(w, "soft"), _select_soft),
    "hard": Forward(lambda w: param_coeffs(w, "hard"), _select_st, trains=False),
    "st": Forward(lambda w: param_coeffs(w, "st"), _select_st, soft_wire_inputs=True),
    "gumbel": Forward(lambda w: _gate_coeffs_sampled(w, "gumbel"), _select_gumbel, True),
    "cage": Forward(lambda w: _gate_coeffs_sampled(w, "cage"), _select_cage),
    "gumbel-gates": Forward(lambda w: _gate_coeffs_sampled(w, "gumbel"), _select_st, True),
}
MODES = tuple(FORWARDS)
TRAINING_FORWARDS = tuple(k for k, f in FORWARDS.items() if f.trains)


def get_forward(mode: str) -> Forward:
    """The `Forward` of ``mode``; one-line `UsageError` for an unknown one."""
    if mode not in FORWARDS:
        raise UsageError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    return FORWARDS[mode]


def step_seed(seed: int, step: int) -> int:
    """The generator seed of step ``step`` of a run seeded ``seed``: one per (seed, step)."""
    return seed * 1_000_003 + step


def seed_noise(mode: str, seed: int, step: int) -> None:
    """Seed torch's global generator from ``(seed, step)`` before a step of a stochastic mode
    (nothing for the others), so a resumed run draws the noise of an uninterrupted one."""
    if get_forward(mode).stochastic:
        torch.manual_seed(step_seed(seed, step))
