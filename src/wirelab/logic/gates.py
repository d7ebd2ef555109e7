"""The 16 two-input Boolean functions, their real-valued relaxations, and the 4-coefficient form.

Gate numbering (the convention of Petersen et al. 2022, arXiv:2210.08277, Table 1): gate ``g`` has
the truth table whose bits, most significant first, are ``f(0,0) f(0,1) f(1,0) f(1,1)``; so
``f_g(a, b) = (g >> (3 - (2a + b))) & 1`` for Boolean ``a, b``.

====  ===========  =====================  ==========================
 id   name         Boolean                relaxation on [0, 1]
====  ===========  =====================  ==========================
  0   FALSE        0                      0
  1   AND          a & b                  ab
  2   A_AND_NOT_B  a & ~b                 a - ab
  3   A            a                      a
  4   NOT_A_AND_B  ~a & b                 b - ab
  5   B            b                      b
  6   XOR          a ^ b                  a + b - 2ab
  7   OR           a | b                  a + b - ab
  8   NOR          ~(a | b)               1 - (a + b - ab)
  9   XNOR         ~(a ^ b)               1 - (a + b - 2ab)
 10   NOT_B        ~b                     1 - b
 11   A_OR_NOT_B   a | ~b                 1 - b + ab
 12   NOT_A        ~a                     1 - a
 13   NOT_A_OR_B   ~a | b                 1 - a + ab
 14   NAND         ~(a & b)               1 - ab
 15   TRUE         1                      1
====  ===========  =====================  ==========================

Every relaxation is the multilinear interpolation of its truth table,
``f(a, b) = c0 + c1 a + c2 b + c3 ab`` with ``c = COEFFS[g]``; a softmax mixture ``sum_g p_g f_g``
is therefore ``(p @ COEFFS) . (1, a, b, ab)``: four numbers per neuron instead of sixteen.
"""

from __future__ import annotations

import numpy as np

NAMES = (
    "FALSE",
    "AND",
    "A_AND_NOT_B",
    "A",
    "NOT_A_AND_B",
    "B",
    "XOR",
    "OR",
    "NOR",
    "XNOR",
    "NOT_B",
    "A_OR_NOT_B",
    "NOT_A",
    "NOT_A_OR_B",
    "NAND",
    "TRUE",
)
"""The 16 gate names, ``NAMES[g]`` for gate id ``g`` (the table above)."""
NUM_GATES = 16
"""Number of two-input Boolean functions (gate ids ``0..15``)."""
PASS_A = 3  # the pass-through gate used by residual initialisation
PASS_B = 5

# TRUTH[g, 2a + b] = f_g(a, b)
TRUTH = np.array([[(g >> (3 - i)) & 1 for i in range(4)] for g in range(NUM_GATES)], dtype=np.uint8)
"""Truth tables ``(16, 4)`` uint8: ``TRUTH[g, 2a + b] = f_g(a, b)``."""


def truth_to_coeffs(truth: np.ndarray) -> np.ndarray:
    """Multilinear coefficients ``(c0, c1, c2, c3)`` of truth tables ``(..., 4)`` (f00 f01 f10 f11).

    f(a, b) = f00 (1-a)(1-b) + f01 (1-a) b + f10 a (1-b) + f11 a b
            = f00 + (f10 - f00) a + (f01 - f00) b + (f11 - f10 - f01 + f00) ab
    """
    t = np.asarray(truth, dtype=np.float64)
    f00, f01, f10, f11 = t[..., 0], t[..., 1], t[..., 2], t[..., 3]
    return np.stack([f00, f10 - f00, f01 - f00, f11 - f10 - f01 + f00], axis=-1)


COEFFS = truth_to_coeffs(TRUTH)  # (16, 4)
"""Multilinear coefficients ``(16, 4)``: ``f_g(a, b) = c0 + c1 a + c2 b + c3 ab`` with
``c = COEFFS[g]``."""


def gate_bool(g: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Reference Boolean evaluation of gate ``g`` on Boolean arrays ``a``, ``b``."""
    a = np.asarray(a, dtype=np.uint8)
    b = np.asarray(b, dtype=np.uint8)
    return TRUTH[g][2 * a + b]


def gate_bits(g: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Gate ``g`` on packed bit words (any unsigned integer dtype), bit-parallel."""
    ones = np.invert(np.zeros_like(a))
    table = {
        0: lambda: np.zeros_like(a),
        1: lambda: a & b,
        2: lambda: a & ~b,
        3: lambda: a.copy(),
        4: lambda: ~a & b,
        5: lambda: b.copy(),
        6: lambda: a ^ b,
        7: lambda: a | b,
        8: lambda: ~(a | b),
        9: lambda: ~(a ^ b),
        10: lambda: ~b,
        11: lambda: a | ~b,
        12: lambda: ~a,
        13: lambda: ~a | b,
        14: lambda: ~(a & b),
        15: lambda: ones,
    }
    return table[int(g)]()
