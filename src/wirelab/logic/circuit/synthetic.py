"""Random discrete logic gate networks: inputs for tests and benchmarks when no trained one exists.

A random net has the shape of a trained one (random wiring, as in Petersen et al. 2022) but random
gates; it is *not* a classifier. Benchmarks that use one say so in their output.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.logic.discrete import DiscreteLayer, DiscreteLogicNet


def random_net(
    layer_sizes: Sequence[int],
    *,
    features: int = 16,
    thermometer: int = 1,
    num_classes: int = 2,
    tau: float = 1.0,
    seed: int = 0,
    gate_probs: Sequence[float] | None = None,
) -> DiscreteLogicNet:
    """A `DiscreteLogicNet` with uniformly random wiring and gates (or gates drawn from
    ``gate_probs`` over the 16 ids); thresholds are sorted uniform draws in [0, 1)."""
    rng = np.random.default_rng(seed)
    thr = np.sort(rng.random((features, thermometer)), axis=1)
    width = features * thermometer
    layers = []
    p = None if gate_probs is None else np.asarray(gate_probs, dtype=np.float64)
    for n in layer_sizes:
        a = rng.integers(0, width, n)
        b = rng.integers(0, width, n)
        gate = rng.choice(16, size=n, p=None if p is None else p / p.sum()).astype(np.uint8)
        layers.append(DiscreteLayer(a.astype(np.int64), b.astype(np.int64), gate))
        width = n
    return DiscreteLogicNet(thr, tuple(layers), num_classes, tau, {"random": True, "seed": seed})
