"""Compatibility name for the readouts, which live in `wirelab.reservoir.ridge` (one module per
concept: `ridge.estimators.Ridge`, `ridge.classifiers`, `ridge.stream.RidgeAccumulator`, ...).

Example: ``from wirelab.reservoir.readout import Ridge`` is ``wirelab.reservoir.ridge.Ridge``.
"""

from wirelab.reservoir.ridge import (
    DEFAULT_LAMBDAS,
    LogisticClassifier,
    Ridge,
    RidgeAccumulator,
    RidgeClassifier,
    standardized_solve,
)

__all__ = [
    "DEFAULT_LAMBDAS",
    "LogisticClassifier",
    "Ridge",
    "RidgeAccumulator",
    "RidgeClassifier",
    "standardized_solve",
]
