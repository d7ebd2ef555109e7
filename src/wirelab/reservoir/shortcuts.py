"""Shortcut fractions: how much of a sensory class's output reaches the descending neurons directly.

With ``W`` ``(N, N)`` ``[pre, post]`` (absolute values for a signed matrix), ``P`` its row-
normalised matrix (``P[i, j] = |W[i, j]| / sum_k |W[i, k]|``; rows without outputs stay 0), ``T``
the target population (``DN-VNC``) and ``1_T`` its indicator, a sensory class ``S``
(`wirelab.reservoir.nulls.cell_classes`, ``sensory:<modality>``) starts a walk at its neurons in
proportion to their output weight, ``s_i = out_i / sum_{k in S} out_k`` (``out_i = sum_j |W[i,
j]|``), and

- ``one_hop = s^T P 1_T = sum_{i in S, j in T} |W[i, j]| / sum_{i in S} out_i``: the share of the
  class's output weight made onto ``T`` directly;
- ``two_hop = s^T P P 1_T``: the share of that walk at a ``T`` neuron after exactly two steps
  (through any neuron, a ``T`` neuron included);
- ``within_two = one_hop + s^T P diag(1 - 1_T) P 1_T``: the share that reaches ``T`` for the
  first time within two steps.

Row ``sensory`` (every sensory class together) comes first. Works on the connectome and on any
null of it (the classes are the connectome's; a null keeps the neurons)::

    fractions = shortcut_fractions(con)                       # the connectome
    fractions = shortcut_fractions(con, make_null("degree", con, seed=1))
    fractions["sensory:olfactory"]["one_hop"]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.reservoir.nulls.classes import cell_classes
from wirelab.reservoir.weights import as_csr

MEASURES = ("one_hop", "two_hop", "within_two")


def row_normalised(weights: Any) -> sp.csr_matrix:
    """``P[i, j] = |W[i, j]| / sum_k |W[i, k]|`` (rows without outputs stay 0)."""
    m = abs(as_csr(weights))
    out = np.asarray(m.sum(axis=1)).ravel()
    scale = np.divide(1.0, out, out=np.zeros_like(out), where=out > 0)
    return sp.csr_matrix(sp.diags(scale) @ m)


def shortcut_fractions(
    con: Connectome, weights: Any = None, *, target: str = "DN-VNC"
) -> dict[str, dict[str, float]]:
    """``{class: {"one_hop", "two_hop", "within_two": share}}`` for ``sensory`` and each
    sensory class of ``con``, over ``weights`` (``(N, N)`` ``[pre, post]``; None: ``con``'s)."""
    labels, names = cell_classes(con)
    w = con.matrix() if weights is None else as_csr(weights)
    if w.shape != (con.n, con.n):
        raise UsageError(f"weights have shape {w.shape}, {con.name} has {con.n} neurons")
    if target not in names:
        raise UsageError(f"{con.name} has no {target!r} neurons; its classes: {', '.join(names)}")
    p = row_normalised(w)
    in_t = (labels == names.index(target)).astype(np.float64)
    reach1 = p @ in_t  # (N,): share of each neuron's output onto T
    reach2 = p @ reach1
    first2 = p @ (reach1 * (1.0 - in_t))
    out = np.asarray(abs(w).sum(axis=1)).ravel()
    sensory = [i for i, c in enumerate(names) if c.startswith("sensory")]
    groups = {"sensory": np.isin(labels, sensory)} | {names[i]: labels == i for i in sensory}
    result: dict[str, dict[str, float]] = {}
    for name, members in groups.items():
        total = out[members].sum()
        if total == 0:
            continue
        s = np.where(members, out, 0.0) / total
        one = float(s @ reach1)
        result[name] = {
            "one_hop": one,
            "two_hop": float(s @ reach2),
            "within_two": one + float(s @ first2),
        }
    if not result:
        raise UsageError(f"{con.name} has no sensory neurons with outputs")
    return result
