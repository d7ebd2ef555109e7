"""The configuration of a reservoir study (`ExperimentConfig`; `DEFAULTS` its defaults, read by
``wirelab reservoir run``'s options and by the Python API), resolved once.

`resolve_experiment` checks every setting, loads the connectome (once), selects its edge types,
resolves the normalisation (``normalize="auto"``: row for synapse counts, spectral for signed
matrices) and the bias (its canonical form), the input and readout populations and the task
entries, into a `ResolvedExperiment`: everything the jobs (`jobs.run_job`) need, handed to
them as it is (worker processes receive it once, nothing is loaded again). Anything wrong is a
one-line `UsageError` before any work.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.cli_options import MAX_COUNT, check_memory
from wirelab.data.connectomes import Connectome, check_connectome_source, load_connectome
from wirelab.errors import UsageError
from wirelab.parallel import ExecOptions
from wirelab.reservoir.memory import check_study_memory
from wirelab.reservoir.nulls import DEFAULT_NULLS, NULLS, usable_nulls
from wirelab.reservoir.populations import parse_population
from wirelab.reservoir.ridge.solvers import DEFAULT_SOLVER, SOLVERS
from wirelab.reservoir.tasks import TASKS, Task
from wirelab.reservoir.units import BIAS, INPUT_SCALING, LIFUnits, Units, parse_bias
from wirelab.reservoir.weights import (
    NORMALIZATIONS,
    as_csr,
    normalize,
    parse_alphas,
    resolve_normalization,
)

ROW_BYTES = 200  # a lower bound of one result row's memory (a dict of a few numbers and names)
ALPHAS = "0.2:1.6:8"  # the default gains (``--alpha``): 8 evenly spaced from 0.2 to 1.6


def _default_alphas() -> list[float]:
    return [float(a) for a in parse_alphas(ALPHAS)]


@dataclass(frozen=True)
class ExperimentConfig:
    """Every setting of a reservoir study, with THE defaults (``wirelab reservoir run``'s option
    defaults and the Python API's keyword defaults are these fields' defaults; `DEFAULTS`).

    Network: ``connectome`` (a registered name or a file, `wirelab.data.CONNECTOMES`),
    ``edge_types`` (None: all), ``normalize`` (``auto``: row for synapse counts, spectral for
    signed matrices; `wirelab.reservoir.normalize`), the gains ``alphas`` (``W = alpha *
    normalize(W_raw)``), the populations ``inputs`` and ``outputs`` (`parse_population`
    strings: ``"sensory"``, ``"DN-VNC:left"``, ``"all"``, ...). Units: ``activation`` (``tanh``,
    ``linear``, ``sigmoid`` or ``lif``), ``leak`` ``a`` in (0, 1], ``input_scaling`` ``s_in``
    (`units.INPUT_SCALING`, 0.3), ``bias`` (a number, or ``"random[:SCALE]"``: ``b_i ~
    U[-SCALE, SCALE]`` per neuron drawn from ``seed``; `units.BIAS`, ``"random:0.2"``).
    Study: ``tasks`` (`TASKS` names), ``nulls`` per null model, ``null_models`` (`NULLS` names,
    default `DEFAULT_NULLS`: ``degree`` and ``degree-boundary``, the second left out, with the
    reason in metrics.json, on a connectome without cell classes; `nulls.usable_nulls`),
    ``seed`` (inputs, splits, bias and nulls: null ``i`` uses ``seed + 1 + i``), ``quick``
    (each task's short sizes), ``task_params`` (sizes per task),
    ``readout_solver`` (every ridge readout's `ridge.SOLVERS` name: ``fast``, the default, or
    ``exact``, exact down to lambda 1e-12 and 1.9-6.3x slower; docs/reservoir.md). Execution:
    ``workers`` (None: the cores this process may use), ``backend``, ``address``
    (`wirelab.parallel`).

    Example:
        ``replace(DEFAULTS, tasks=["narma10"], alphas=[0.9, 1.1], outputs="DN-VNC")``
    """

    tasks: list[str] = field(default_factory=list)
    alphas: list[float] = field(default_factory=_default_alphas)
    connectome: str = "larva"
    inputs: str = "sensory"
    outputs: str = "all"
    normalize: str = "auto"
    edge_types: list[str] | None = None
    nulls: int = 20
    null_models: list[str] = field(default_factory=lambda: list(DEFAULT_NULLS))
    activation: str = "tanh"
    leak: float = 1.0
    input_scaling: float = INPUT_SCALING
    bias: float | str = BIAS  # a number, or "random[:SCALE]" (`units.parse_bias`)
    seed: int = 0
    workers: int | None = None  # None: the cores this process may use (`wirelab.parallel`)
    backend: str = "local"
    address: str | None = None
    quick: bool = False
    task_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    readout_solver: str = DEFAULT_SOLVER  # `ridge.SOLVERS`: "fast" or "exact"

    def params(self, task: str) -> dict[str, Any]:
        """Task keyword arguments: the task's quick sizes if ``quick``, then ``task_params``."""
        quick = TASKS.get(task).quick if self.quick else {}
        return {**quick, **self.task_params.get(task, {})}

    def executor(self) -> ExecOptions:
        """Where the jobs run: ``--backend``, ``--workers``, ``--address``."""
        return ExecOptions(self.backend, self.workers, self.address)

    def validate(self, *, source: bool = True, study: bool = True) -> None:
        """A one-line `UsageError` for any bad setting (nothing is loaded); ``source=False``
        skips the check of ``connectome`` (a `Connectome` given in Python), ``study=False``
        allows no tasks (one network, `wirelab.reservoir.build`)."""
        if source:
            check_connectome_source(self.connectome)  # unknown: one line naming the choices
        if self.edge_types is not None and not self.edge_types:
            raise UsageError("edge types: give at least one (or none for every type)")
        bad = [t for t in self.tasks if t not in TASKS]
        if bad or (study and not self.tasks):
            raise UsageError(f"tasks must be among {', '.join(TASKS.names())}, got {self.tasks}")
        bad = [m for m in self.null_models if m not in NULLS]
        if bad:
            raise UsageError(f"null models must be among {', '.join(NULLS.names())}, got {bad}")
        if not isinstance(self.nulls, int) or not 0 <= self.nulls <= MAX_COUNT:
            raise UsageError(f"nulls must be a whole number in [0, 2**31 - 1], got {self.nulls}")
        self.executor().validate()
        if not 0 <= self.seed < 2**32:
            raise UsageError(f"seed must be in [0, 2**32 - 1], got {self.seed}")
        if self.seed + self.nulls >= 2**32:  # null i is built with seed + 1 + i
            raise UsageError(
                f"seed + nulls must be below 2**32 (null i uses seed + 1 + i), got seed "
                f"{self.seed} and {self.nulls} nulls"
            )
        if not self.alphas or not all(np.isfinite(a) for a in self.alphas):
            raise UsageError(f"alpha values must be one or more finite numbers, got {self.alphas}")
        self._check_memory()
        if self.normalize not in NORMALIZATIONS:
            raise UsageError(f"normalize must be one of {', '.join(NORMALIZATIONS)}")
        SOLVERS.get(self.readout_solver)  # an unknown name: one line naming the choices
        if self.activation == "lif":
            for name in self.tasks:
                if why := TASKS.get(name).rate_units_only:
                    raise UsageError(f"{name} {why}: use rate units")
        self.units(1)

    def _check_memory(self) -> None:
        """The study keeps one result row per network, gain and task (`ROW_BYTES` at least
        each): ``--nulls`` is refused in one line when those rows alone exceed the memory
        available now (`wirelab.cli_options.check_memory`), before any work."""
        networks = 1 + sum(
            min(self.nulls, 1) if m in NULLS and NULLS.get(m).deterministic else self.nulls
            for m in self.null_models
        )
        rows = networks * len(self.alphas) * max(len(self.tasks), 1)
        check_memory(f"--nulls {self.nulls}", rows * ROW_BYTES)

    def units(self, n: int) -> Units | LIFUnits:
        """Rate units, or LIF units (``activation="lif"``, default time constants), for ``n``
        neurons: the bias resolved by `units.parse_bias` (a random bias drawn from ``seed``)."""
        bias = parse_bias(self.bias).vector(n, self.seed)
        if self.activation == "lif":
            return LIFUnits(input_scaling=self.input_scaling, bias=bias)
        return Units(self.activation, self.leak, self.input_scaling, bias)


@dataclass(frozen=True)
class ResolvedExperiment:
    """An `ExperimentConfig` checked and resolved once, with what every job needs.

    ``config``: normalisation and bias resolved (what config.json records); ``connectome``
    loaded once; ``real`` its raw ``(N, N)`` ``[pre, post]`` matrix of the chosen edge types and
    ``weights`` that matrix normalised (the connectome's network); ``inputs``, ``outputs``,
    ``left``, ``right`` the neuron indices of the populations; ``tasks`` the task entries by
    name; ``population_sizes`` what metrics.json records of them; ``nulls_left_out`` the
    default null models this connectome cannot have, ``{name: reason}`` (`nulls.usable_nulls`;
    ``config.null_models`` holds the others).
    """

    config: ExperimentConfig
    connectome: Connectome
    real: sp.csr_matrix
    weights: sp.csr_matrix
    inputs: np.ndarray
    outputs: np.ndarray
    left: np.ndarray
    right: np.ndarray
    tasks: dict[str, Task]
    population_sizes: dict[str, int]
    nulls_left_out: dict[str, str] = field(default_factory=dict)

    def jobs(self) -> list[tuple[str, int]]:
        """``[("connectome", -1), (null_model, i), ...]``; a deterministic null model runs once."""
        cfg = self.config
        out = [("connectome", -1)]
        for kind in cfg.null_models:
            count = min(cfg.nulls, 1) if NULLS.get(kind).deterministic else cfg.nulls
            out += [(kind, i) for i in range(count)]
        return out


def resolve_experiment(
    cfg: ExperimentConfig, connectome: Connectome | None = None, *, study: bool = True
) -> ResolvedExperiment:
    """Check ``cfg``, load its connectome (once; or use ``connectome``, already loaded, whose
    name ``cfg.connectome`` then records), resolve its populations, edge types, normalisation
    and bias: a one-line `UsageError` for anything wrong, before any work (``study=False``:
    no tasks needed, `ExperimentConfig.validate`)."""
    cfg.validate(source=connectome is None, study=study)
    con = load_connectome(cfg.connectome) if connectome is None else connectome
    tasks = {name: TASKS.get(name) for name in dict.fromkeys(cfg.tasks)}
    inputs = parse_population(con, cfg.inputs)
    outputs = parse_population(con, cfg.outputs)
    sizes = {"inputs": int(inputs.size), "outputs": int(outputs.size)}
    for name, task in tasks.items():
        if task.needs_sides:
            for side in ("left", "right"):
                sizes[f"inputs_{side}"] = int(np.sum(con.side[inputs] == side))
                if sizes[f"inputs_{side}"] == 0:
                    raise UsageError(
                        f"the {name} task needs {side} neurons in --inputs {cfg.inputs}"
                    )
            break
    # the connectome's own edge types are checked here (a one-line error naming them)
    real = as_csr(con, edge_types=cfg.edge_types)
    how = resolve_normalization(real, cfg.normalize)
    # the null models defined on this connectome (the defaults drop degree-boundary without
    # cell classes, with the reason; one named explicitly is a one-line error); none built: all
    kept, left_out = usable_nulls(con, cfg.null_models) if cfg.nulls else (cfg.null_models, {})
    resolved = replace(cfg, normalize=how, bias=str(parse_bias(cfg.bias)), null_models=list(kept))
    exp = ResolvedExperiment(
        config=resolved,
        connectome=con,
        real=real,
        weights=normalize(real, how, seed=resolved.seed),
        inputs=inputs,
        outputs=outputs,
        left=inputs[con.side[inputs] == "left"],
        right=inputs[con.side[inputs] == "right"],
        tasks=tasks,
        population_sizes=sizes,
        nulls_left_out=left_out,
    )
    # the study's peak memory against the memory available: one line (exit 1) before any work
    return check_study_memory(exp) if study else exp


DEFAULTS = ExperimentConfig()
"""THE defaults of a reservoir study: ``wirelab reservoir run``'s option defaults and the Python
API's (`wirelab.reservoir.build`, `score`, `compare`) are its fields (no tasks; gains 0.2 .. 1.6
in 8 steps; input scaling 0.3; bias ``random:0.2``; 20 nulls of each `DEFAULT_NULLS` family:
degree-preserving, and degree-preserving within each cell-class pair where there are classes)."""


def resolve(cfg: ExperimentConfig) -> ExperimentConfig:
    """``cfg`` with ``normalize="auto"`` resolved on the connectome's matrix and the bias in its
    canonical form (what config.json records, so the run repeats from it)."""
    return resolve_experiment(cfg).config
