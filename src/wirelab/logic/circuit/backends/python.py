"""The ``python`` back end: numpy, bit-parallel on packed words (64 samples per uint64). It
writes nothing: ``BACKEND`` has an evaluator only.

Two evaluators that must agree (a test checks it):

- `evaluate_words_reference`: one gate at a time with `wirelab.logic.gates.gate_bits`;
- `PyEvaluator`: gates grouped by logic level and evaluated a whole level at a time through the
  minterm form of the truth table ``t = (t00, t01, t10, t11)`` of each gate::

      f(a, b) = t00 & ~a & ~b  |  t01 & ~a & b  |  t10 & a & ~b  |  t11 & a & b

  with each ``t`` an all-ones or all-zeros word. This is the reference the C and Verilog back
  ends are checked against.

Node values live in ``V`` of shape ``(num_nodes, W)``: row 0 is FALSE, row 1 TRUE, then inputs,
then gates (the node numbering of `wirelab.logic.circuit.ir`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.backends.base import Backend, Evaluator
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.pack import pack_bits, unpack_bits
from wirelab.logic.gates import TRUTH, gate_bits


def _check_inputs(c: Circuit, in_words: np.ndarray) -> None:
    if in_words.ndim != 2 or in_words.shape[0] != c.num_inputs or in_words.dtype.kind != "u":
        raise UsageError(
            f"expected ({c.num_inputs}, W) unsigned input words, got {in_words.dtype} "
            f"{in_words.shape}"
        )


def _init_values(c: Circuit, in_words: np.ndarray) -> np.ndarray:
    v = np.zeros((c.num_nodes, in_words.shape[1]), dtype=in_words.dtype)  # (N, W)
    v[1] = np.invert(v[1])
    v[2 : c.first_gate] = in_words
    return v


def evaluate_words_reference(c: Circuit, in_words: np.ndarray) -> np.ndarray:
    """``(I, W)`` input words -> ``(O, W)`` output words, one gate at a time."""
    _check_inputs(c, in_words)
    v = _init_values(c, in_words)
    for i, (g, a, b) in enumerate(zip(c.op.tolist(), c.a.tolist(), c.b.tolist(), strict=True)):
        v[c.first_gate + i] = gate_bits(g, v[a], v[b])
    return v[c.outputs]


class PyEvaluator:
    """Level-at-a-time evaluation of a circuit; build once, call on many batches."""

    def __init__(self, c: Circuit) -> None:
        self.circuit = c
        lev = c.levels()[c.first_gate :]  # (G,)
        order = np.argsort(lev, kind="stable")
        bounds = np.flatnonzero(np.diff(lev[order])) + 1
        self.groups = [g for g in np.split(order, bounds) if g.size]
        self._truth = TRUTH[c.op].astype(bool)  # (G, 4)

    def evaluate_words(self, in_words: np.ndarray) -> np.ndarray:
        """``(I, W)`` unsigned input words -> ``(O, W)`` output words."""
        c = self.circuit
        _check_inputs(c, in_words)
        v = _init_values(c, in_words)  # (N, W)
        ones = np.invert(np.zeros((), dtype=v.dtype))
        zero = np.zeros((), dtype=v.dtype)
        for idx in self.groups:
            a = v[c.a[idx]]  # (n, W)
            b = v[c.b[idx]]
            t = np.where(self._truth[idx], ones, zero)[:, :, None]  # (n, 4, 1)
            na, nb = ~a, ~b
            v[c.first_gate + idx] = (
                (t[:, 0] & na & nb) | (t[:, 1] & na & b) | (t[:, 2] & a & nb) | (t[:, 3] & a & b)
            )
        return v[c.outputs]

    def forward_bits(self, bits: np.ndarray) -> np.ndarray:
        """``(B, I)`` bool -> ``(B, O)`` bool."""
        bits = np.asarray(bits, dtype=bool)
        return unpack_bits(self.evaluate_words(pack_bits(bits)), len(bits))

    def counts(self, x: np.ndarray) -> np.ndarray:
        """``(B, F)`` features -> ``(B, C)`` popcount per class (score * tau)."""
        return self.circuit.counts_from_bits(self.forward_bits(self.circuit.binarize(x)))

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.argmax(self.counts(x), axis=1)


def evaluator(circuit: Circuit, out_dir: Path) -> Evaluator:
    """``(B, I)`` input bits -> ``(B, O)`` output bits and ``(B, C)`` counts (nothing read from
    ``out_dir``)."""
    ev = PyEvaluator(circuit)

    def evaluate(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = ev.forward_bits(bits)
        return out, circuit.counts_from_bits(out)

    return evaluate


BACKEND = Backend(evaluator=evaluator)
