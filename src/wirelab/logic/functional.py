"""Relaxed logic gates in torch: the readable 16-way mixture and the 4-coefficient fast form.

A neuron with gate logits ``w`` (16,) computes, on inputs ``a, b`` in [0, 1],

    reference:  y = sum_g softmax(w)_g f_g(a, b)                       (16 relaxations, below)
    fast:       y = c0 + c1 a + c2 b + c3 ab,   c = softmax(w) @ COEFFS  (4 numbers per neuron)

Both are the same polynomial (every ``f_g`` is multilinear), so values and gradients agree up to
rounding; ``tests/logic/test_functional.py`` checks it. The hard gate is ``onehot(argmax w)``,
and the straight-through form uses the hard coefficients in the forward pass and the soft
coefficients' gradient in the backward pass (Petersen et al. 2022, arXiv:2210.08277).

The *light* parametrisation (input-wise, Rüttgers et al. 2025, arXiv:2510.03250) gives a neuron
4 numbers ``z`` (4,) instead of 16 logits: ``t = sigmoid(z)`` is a soft truth table
``(f(0,0), f(0,1), f(1,0), f(1,1))`` and the gate is its multilinear interpolation,

    light:      c = sigmoid(z) @ TRUTH_TO_COEFFS,   y = c0 + c1 a + c2 b + c3 ab

(the same 4-coefficient form, so the same kernels). Its hard gate is the nearest of the 16 gates
to the soft truth table, ``f = [t > 1/2] = [z > 0]``, i.e. `nearest_gate` of the coefficients.
A weight's last dimension says which parametrisation it holds: 16 softmax logits or 4 light ones.
"""

from __future__ import annotations

import numpy as np
import torch

from wirelab.logic.gates import COEFFS, NUM_GATES, truth_to_coeffs

LIGHT_WIDTH = 4  # parameters per gate in the light parametrisation
# c = t @ TRUTH_TO_COEFFS for a truth table t = (f00, f01, f10, f11); (4, 4), exact integers
TRUTH_TO_COEFFS = truth_to_coeffs(np.eye(4))
# t = c @ COEFFS_TO_TRUTH: the polynomial at the corners (0,0), (0,1), (1,0), (1,1)
COEFFS_TO_TRUTH = np.array([[1, 1, 1, 1], [0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 1]], np.float64)


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


def light_reference(a: torch.Tensor, b: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """Reference light gate: ``a, b`` (n, B), ``z`` (n, 4) -> (n, B), the expected output when
    ``a, b`` are independent bits with those probabilities and the output for inputs ``(i, j)``
    is 1 with probability ``sigmoid(z[2i + j])``: ``sum_ij t_ij P(a = i) P(b = j)``."""
    t = torch.sigmoid(z)  # (n, 4)
    pa, pb = (1 - a, a), (1 - b, b)
    out = torch.zeros_like(a)
    for i in range(2):
        for j in range(2):
            out = out + t[:, 2 * i + j : 2 * i + j + 1] * pa[i] * pb[j]
    return out


def light_soft_coeffs(z: torch.Tensor) -> torch.Tensor:
    """``(..., 4)`` light parameters -> ``(..., 4)`` coefficients of the truth table
    ``sigmoid(z)``."""
    m = torch.as_tensor(TRUTH_TO_COEFFS, dtype=z.dtype, device=z.device)
    return torch.sigmoid(z) @ m


def truth_bits_to_gate(bits: torch.Tensor) -> torch.Tensor:
    """Boolean truth tables ``(..., 4)`` (f00 f01 f10 f11) -> gate ids ``(...,)`` (gates.py)."""
    w = torch.tensor([8, 4, 2, 1], device=bits.device)
    return (bits.long() * w).sum(-1)


def light_gates(z: torch.Tensor) -> torch.Tensor:
    """The gate nearest to ``sigmoid(z)``: truth bit ``i`` is ``z_i > 0``;
    ``(..., 4)`` -> ``(...,)``."""
    return truth_bits_to_gate(z.detach() > 0)


def nearest_gate(c: torch.Tensor) -> torch.Tensor:
    """The gate whose truth table is nearest (Euclidean, so bit by bit) to the truth table of
    coefficients ``c`` ``(..., 4)``: ``f = [c @ COEFFS_TO_TRUTH > 1/2]``; ``(...,)`` gate ids."""
    m = torch.as_tensor(COEFFS_TO_TRUTH, dtype=c.dtype, device=c.device)
    return truth_bits_to_gate((c.detach() @ m) > 0.5)


def gate_ids(w: torch.Tensor) -> torch.Tensor:
    """Discrete gate per neuron of a weight ``(..., 16)`` (argmax) or ``(..., 4)`` (light)."""
    if w.shape[-1] == LIGHT_WIDTH:
        return light_gates(w)
    return w.detach().argmax(dim=-1)


def param_coeffs(w: torch.Tensor, mode: str) -> torch.Tensor:
    """Coefficients ``(..., 4)`` of a weight ``(..., 16)`` or ``(..., 4)`` for a forward mode:
    ``soft`` (relaxation), ``hard`` (the discrete gate) or ``st`` (hard forward, soft gradient)."""
    if w.shape[-1] != LIGHT_WIDTH:
        return {"soft": soft_coeffs, "hard": hard_coeffs, "st": straight_through_coeffs}[mode](w)
    hard = coeff_matrix(w)[light_gates(w)]
    if mode == "hard":
        return hard
    soft = light_soft_coeffs(w)
    return soft if mode == "soft" else hard + (soft - soft.detach())
