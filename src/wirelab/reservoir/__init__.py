"""Connectome reservoir computing: weights -> dynamics -> readout, tasks, nulls, statistics.

Orientation everywhere: ``W[pre, post]``; row-vector states, recurrent drive ``x @ W``.
"""

from wirelab.reservoir.dynamics import Reservoir, RunResult
from wirelab.reservoir.populations import parse_population, population
from wirelab.reservoir.units import LIFState, LIFUnits, Units, esn_step, lif_step
from wirelab.reservoir.weights import (
    as_csr,
    from_edge_list,
    normalize,
    parse_alphas,
    reservoir_weights,
    spectral_radius,
)

__all__ = [
    "LIFState",
    "LIFUnits",
    "Reservoir",
    "RunResult",
    "Units",
    "as_csr",
    "esn_step",
    "from_edge_list",
    "lif_step",
    "normalize",
    "parse_alphas",
    "parse_population",
    "population",
    "reservoir_weights",
    "spectral_radius",
]
