"""A connectome-vs-nulls experiment: every task, every gain, the connectome and N nulls.

`run` is the experiment of ``wirelab reservoir run`` (and of the tour's reservoir step): an
`ExperimentConfig` in, a result directory out (config.json, score_vs_alpha.png, metrics.json).
It resolves the configuration once (`resolve_experiment`: every setting checked, the connectome
loaded, its edge types selected, the normalisation and bias resolved, the input and readout
populations and the task entries looked up) into a `ResolvedExperiment`, before the result
directory exists, and hands that to the jobs (`jobs.run_jobs`: one per network, the connectome
or null ``i`` of a null model, every task at every gain together). config.json holds the
resolved configuration (``normalize="auto"`` replaced by the normalisation used, the bias in its
canonical form), so ``ExperimentConfig(**config["config"])`` repeats the run.

Defaults (measured in docs/reservoir.md, "Choosing the defaults"): every neuron read out
(``outputs="all"``), a random per-neuron bias ``b_i ~ U[-0.2, 0.2]`` (``bias="random:0.2"``),
input scaling 0.3, ``normalize="auto"`` (row for synapse counts, spectral for signed matrices).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectome import Connectome
from wirelab.data.connectomes import check_connectome_source, load_connectome
from wirelab.errors import UsageError
from wirelab.progress import progress_bar
from wirelab.reservoir.jobs import run_jobs
from wirelab.reservoir.nulls import NULLS
from wirelab.reservoir.populations import parse_population
from wirelab.reservoir.tasks import TASKS, Task, metric_of
from wirelab.reservoir.units import LIFUnits, Units, parse_bias
from wirelab.reservoir.weights import NORMALIZATIONS, as_csr, normalize, resolve_normalization
from wirelab.results import experiment


@dataclass
class ExperimentConfig:
    tasks: list[str]
    alphas: list[float]
    connectome: str = "larva"
    inputs: str = "sensory"
    outputs: str = "all"
    normalize: str = "auto"
    edge_types: list[str] | None = None
    nulls: int = 20
    null_models: list[str] = field(default_factory=lambda: ["degree"])
    activation: str = "tanh"
    leak: float = 1.0
    input_scaling: float = 0.3
    bias: float | str = "random:0.2"  # a number, or "random[:SCALE]" (`units.parse_bias`)
    seed: int = 0
    workers: int = 2
    quick: bool = False
    task_params: dict[str, dict[str, Any]] = field(default_factory=dict)

    def params(self, task: str) -> dict[str, Any]:
        """Task keyword arguments: the task's quick sizes if ``quick``, then ``task_params``."""
        quick = TASKS.get(task).quick if self.quick else {}
        return {**quick, **self.task_params.get(task, {})}

    def validate(self) -> None:
        """A one-line `UsageError` for any bad setting (nothing is loaded)."""
        check_connectome_source(self.connectome)  # unknown: one line naming the choices
        if self.edge_types is not None and not self.edge_types:
            raise UsageError("edge types: give at least one (or none for every type)")
        bad = [t for t in self.tasks if t not in TASKS]
        if bad or not self.tasks:
            raise UsageError(f"tasks must be among {', '.join(TASKS.names())}, got {self.tasks}")
        bad = [m for m in self.null_models if m not in NULLS]
        if bad:
            raise UsageError(f"null models must be among {', '.join(NULLS.names())}, got {bad}")
        if self.nulls < 0 or self.workers < 1:
            raise UsageError("nulls must be >= 0 and workers >= 1")
        if not 0 <= self.seed < 2**32:
            raise UsageError(f"seed must be in [0, 2**32 - 1], got {self.seed}")
        if not self.alphas or not all(np.isfinite(a) for a in self.alphas):
            raise UsageError(f"alpha values must be one or more finite numbers, got {self.alphas}")
        if self.normalize not in NORMALIZATIONS:
            raise UsageError(f"normalize must be one of {', '.join(NORMALIZATIONS)}")
        if self.activation == "lif":
            for name in self.tasks:
                if why := TASKS.get(name).rate_units_only:
                    raise UsageError(f"{name} {why}: use rate units")
        self.units(1)

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
    name; ``population_sizes`` what metrics.json records of them.
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

    def jobs(self) -> list[tuple[str, int]]:
        """``[("connectome", -1), (null_model, i), ...]``; a deterministic null model runs once."""
        cfg = self.config
        out = [("connectome", -1)]
        for kind in cfg.null_models:
            count = min(cfg.nulls, 1) if NULLS.get(kind).deterministic else cfg.nulls
            out += [(kind, i) for i in range(count)]
        return out


def resolve_experiment(cfg: ExperimentConfig) -> ResolvedExperiment:
    """Check ``cfg``, load its connectome (once), resolve its populations, edge types,
    normalisation and bias: a one-line `UsageError` for anything wrong, before any work."""
    cfg.validate()
    con = load_connectome(cfg.connectome)
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
    resolved = replace(cfg, normalize=how, bias=str(parse_bias(cfg.bias)))
    return ResolvedExperiment(
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
    )


def resolve(cfg: ExperimentConfig) -> ExperimentConfig:
    """``cfg`` with ``normalize="auto"`` resolved on the connectome's matrix and the bias in its
    canonical form (what config.json records, so the run repeats from it)."""
    return resolve_experiment(cfg).config


def run(
    cfg: ExperimentConfig, out: Path, *, overwrite: bool = False, show_progress: bool = True
) -> dict[str, Any]:
    """Resolve ``cfg`` once, score every network (`jobs.run_jobs`) into the result directory
    ``out``.

    Writes config.json first, then score_vs_alpha.png and metrics.json (the metrics of
    `jobs.run_jobs` plus ``wall_seconds`` and ``population_sizes``); returns the metrics as
    written. A bad configuration or population is a `UsageError` before ``out`` is created.
    """
    exp = resolve_experiment(cfg)
    config = asdict(exp.config)
    with experiment(out, command="wirelab reservoir run", config=config, overwrite=overwrite) as rd:
        t0 = time.perf_counter()
        with progress_bar("networks", total=len(exp.jobs()), show=show_progress) as bar:
            metrics = run_jobs(exp, lambda done, total, what: bar.update(done))
        metrics["wall_seconds"] = time.perf_counter() - t0
        metrics["population_sizes"] = exp.population_sizes
        rd.save_figure(plot_scores(metrics), "score_vs_alpha")
        return rd.finish(metrics)


def plot_scores(metrics: dict[str, Any], tasks: Sequence[str] | None = None) -> Any:
    """Score vs alpha per task: the connectome's line over each null model's band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = metrics["results"]
    names = list(tasks) if tasks else sorted({r["task"] for r in rows})
    fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.2), squeeze=False)
    for ax, task in zip(axes[0], names, strict=True):
        sub = [r for r in rows if r["task"] == task]
        if not sub:
            continue
        alphas = sorted({r["alpha"] for r in sub})
        for kind in sorted({r["model"] for r in sub} - {"connectome"}):
            vals = np.array(
                [
                    [r["value"] for r in sub if r["model"] == kind and r["alpha"] == a]
                    for a in alphas
                ]
            )  # (A, n_nulls)
            c = NULLS.get(kind).colour if kind in NULLS else "grey"
            mean, sd = vals.mean(1), vals.std(1)
            ax.fill_between(alphas, vals.min(1), vals.max(1), color=c, alpha=0.15)
            ax.fill_between(alphas, mean - sd, mean + sd, color=c, alpha=0.3)
            ax.plot(alphas, mean, color=c, lw=1, label=f"{kind} nulls (n={vals.shape[1]})")
        con = [
            next(r["value"] for r in sub if r["model"] == "connectome" and r["alpha"] == a)
            for a in alphas
        ]
        ax.plot(alphas, con, "k.-", lw=1.5, label="connectome")
        ax.set_title(task)
        ax.set_xlabel("alpha (global gain)")
        ax.set_ylabel(sub[0]["metric"])
        metric = metric_of(task)
        if metric is not None and metric.log_scale:
            ax.set_yscale("log")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig
