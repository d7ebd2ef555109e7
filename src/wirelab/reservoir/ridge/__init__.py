"""Ridge readouts, one concept per module: `linalg` (checks, the ridge filter, eigenpairs, the
reduced basis), `select` (grids, folds, the lambda rule, edge warnings), `rows` (CV and refit
on rows in memory, one model: the fast solver), `exact` (the same model from SVDs: the exact
solver), `solvers` (the registry `SOLVERS` of those two, ``solver="fast" | "exact"``),
`stream` (streamed statistics and the readable reference), `estimators`
(`Ridge`), `classifiers`, `readout` (the tasks' `fit_readout`).

Example: ``from wirelab.reservoir.ridge import fit_readout; fit_readout(x, y).predict(x2)``.
"""

from wirelab.reservoir.ridge.classifiers import LogisticClassifier, RidgeClassifier
from wirelab.reservoir.ridge.estimators import Ridge, standardized_solve
from wirelab.reservoir.ridge.exact import ExactRowRidge
from wirelab.reservoir.ridge.linalg import check_xy
from wirelab.reservoir.ridge.readout import Readout, fit_readout, standardise
from wirelab.reservoir.ridge.rows import RowRidge
from wirelab.reservoir.ridge.select import (
    CV_TOL,
    DEFAULT_LAMBDAS,
    EDGE_SLOPE,
    GRID,
    choose_lambda,
    edge_warnings,
    fold_rows,
    lambda_detail,
)
from wirelab.reservoir.ridge.solvers import (
    DEFAULT_SOLVER,
    SOLVERS,
    RowSolver,
    current_solver,
    readout_solver,
    row_solver,
)
from wirelab.reservoir.ridge.stream import RidgeAccumulator

__all__ = [
    "CV_TOL",
    "DEFAULT_LAMBDAS",
    "DEFAULT_SOLVER",
    "EDGE_SLOPE",
    "GRID",
    "SOLVERS",
    "ExactRowRidge",
    "LogisticClassifier",
    "Readout",
    "Ridge",
    "RidgeAccumulator",
    "RidgeClassifier",
    "RowRidge",
    "RowSolver",
    "check_xy",
    "choose_lambda",
    "current_solver",
    "edge_warnings",
    "fit_readout",
    "fold_rows",
    "lambda_detail",
    "readout_solver",
    "row_solver",
    "standardise",
    "standardized_solve",
]
