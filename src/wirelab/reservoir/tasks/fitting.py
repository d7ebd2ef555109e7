"""Compatibility name for the tasks' readout, which lives in `wirelab.reservoir.ridge.readout`
(`fit_readout`, `Readout`) and `wirelab.reservoir.ridge.select` (`GRID`, `choose_lambda`).

Example: ``from wirelab.reservoir.ridge import fit_readout`` is
``wirelab.reservoir.ridge.fit_readout``.
"""

from wirelab.reservoir.ridge import (
    EDGE_SLOPE,
    GRID,
    Readout,
    choose_lambda,
    edge_warnings,
    fit_readout,
    lambda_detail,
    standardise,
)

__all__ = [
    "EDGE_SLOPE",
    "GRID",
    "Readout",
    "choose_lambda",
    "edge_warnings",
    "fit_readout",
    "lambda_detail",
    "standardise",
]
