"""Relaxed logic gates in torch: the readable 16-way mixture and the 4-coefficient fast form.

A neuron with gate logits ``w`` (16,) computes, on inputs ``a, b`` in [0, 1],

    reference:  y = sum_g softmax(w)_g f_g(a, b)                       (16 relaxations, below)
    fast:       y = c0 + c1 a + c2 b + c3 ab,   c = softmax(w) @ COEFFS  (4 numbers per neuron)

Both are the same polynomial (every ``f_g`` is multilinear), so values and gradients agree up to
rounding; ``tests/logic/test_functional.py`` checks it. The hard gate is ``onehot(argmax w)``,
and the straight-through form uses the hard coefficients in the forward pass and the soft
coefficients' gradient in the backward pass (Petersen et al. 2022, arXiv:2210.08277).
"""

from __future__ import annotations

import torch

from wirelab.logic.gates import COEFFS, NUM_GATES


def relaxed_gate(g: int, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The real-valued relaxation of gate ``g`` (Petersen et al. 2022, Table 1), written out."""
    ab = a * b
    return [
        torch.zeros_like(a),  # 0 FALSE
        ab,  # 1 AND
        a - ab,  # 2 A AND NOT B
        a,  # 3 A
        b - ab,  # 4 NOT A AND B
        b,  # 5 B
        a + b - 2 * ab,  # 6 XOR
        a + b - ab,  # 7 OR
        1 - (a + b - ab),  # 8 NOR
        1 - (a + b - 2 * ab),  # 9 XNOR
        1 - b,  # 10 NOT B
        1 - b + ab,  # 11 A OR NOT B
        1 - a,  # 12 NOT A
        1 - a + ab,  # 13 NOT A OR B
        1 - ab,  # 14 NAND
        torch.ones_like(a),  # 15 TRUE
    ][g]


def mixture_reference(a: torch.Tensor, b: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """Reference mixture: ``a, b`` (n, B), ``logits`` (n, 16) -> (n, B) = sum_g p_g f_g(a, b)."""
    p = torch.softmax(logits, dim=-1)  # (n, 16)
    out = torch.zeros_like(a)
    for g in range(NUM_GATES):
        out = out + p[:, g : g + 1] * relaxed_gate(g, a, b)
    return out


def coeff_matrix(like: torch.Tensor) -> torch.Tensor:
    """`COEFFS` (16, 4) as a tensor with ``like``'s dtype and device."""
    return torch.as_tensor(COEFFS, dtype=like.dtype, device=like.device)


def soft_coeffs(logits: torch.Tensor) -> torch.Tensor:
    """``(..., 16)`` logits -> ``(..., 4)`` coefficients of the softmax mixture."""
    return torch.softmax(logits, dim=-1) @ coeff_matrix(logits)


def hard_coeffs(logits: torch.Tensor) -> torch.Tensor:
    """``(..., 16)`` logits -> ``(..., 4)`` coefficients of the argmax gate (no gradient)."""
    return coeff_matrix(logits)[logits.detach().argmax(dim=-1)]


def straight_through_coeffs(logits: torch.Tensor) -> torch.Tensor:
    """Hard coefficients in the forward pass, the soft coefficients' gradient in the backward."""
    soft = soft_coeffs(logits)
    return hard_coeffs(logits) + (soft - soft.detach())


def gate_poly(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Fast form in torch: ``a, b`` (n, B), ``c`` (n, 4) -> (n, B) = c0 + c1 a + c2 b + c3 ab."""
    c0, c1, c2, c3 = (c[:, k : k + 1] for k in range(4))
    return c0 + c1 * a + c2 * b + c3 * a * b
