"""Annealed relaxations: the relaxed network moved toward the discrete one during training.

The discretisation gap of a relaxed network has two sources this module can shrink: soft wire
selection (a learned-connection gate reads a softmax mixture of candidates, the discrete gate one
wire) and real-valued inputs (the relaxed network sees grey levels, the discrete one thresholded
bits). Both relaxations get a width that follows the training progress ``p = step / total``:

- connection temperature, geometric from the model's ``connection_tau`` ``T0`` to ``T1``:
  ``T(p) = T0 (T1 / T0)^p`` in every `LearnedLogicDense` (``softmax(l / T)`` over candidates);
- input ramp width, linear from 1 to ``w1``: ``w(p) = 1 + (w1 - 1) p``, applied to the real-valued
  input bits ``r(x)`` of `Binarize.relaxed` as

      r_w(x) = clip(1/2 + (r(x) - 1/2) / w, 0, 1)

  ``w = 1`` is difflogic's ramp (the pixel itself at threshold 1/2), ``w -> 0`` the hard bit;
  ``r_w(x) > 1/2`` exactly when the bit is 1 for every ``w``, so the discrete network is unchanged.

``None`` (the default) leaves a relaxation fixed. The schedule is a pure function of the step, so
a resumed run takes exactly the same relaxations as one that never stopped.
"""

from __future__ import annotations

from torch import nn

from wirelab.logic.layers import Binarize
from wirelab.logic.learned import LearnedLogicDense


def connection_tau(t0: float, t1: float | None, p: float) -> float:
    """``T0 (T1 / T0)^p``, or ``T0`` when ``t1`` is None."""
    return t0 if t1 is None else t0 * (t1 / t0) ** p


def ramp_width(w1: float | None, p: float) -> float:
    """``1 + (w1 - 1) p``, or 1 when ``w1`` is None."""
    return 1.0 if w1 is None else 1.0 + (w1 - 1.0) * p


def set_progress(
    model: nn.Module,
    step: int,
    total: int,
    *,
    connection_tau_end: float | None,
    input_ramp_end: float | None,
    connection_tau_start: float,
) -> None:
    """Set every annealed relaxation of ``model`` to its value after ``step`` of ``total`` steps
    (nothing to do, and no walk over the modules, when neither is annealed)."""
    if connection_tau_end is None and input_ramp_end is None:
        return
    p = min(1.0, max(0.0, step / total)) if total > 0 else 1.0
    for m in model.modules():
        if isinstance(m, LearnedLogicDense):
            m.connection_tau = connection_tau(connection_tau_start, connection_tau_end, p)
        elif isinstance(m, Binarize):
            m.ramp_width = ramp_width(input_ramp_end, p)
