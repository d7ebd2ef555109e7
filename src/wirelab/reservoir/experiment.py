"""A connectome-vs-nulls experiment: every task, every gain, the connectome and N nulls.

One job per network (the connectome, or null ``i`` of a null model built with seed
``seed + 1 + i``); each job normalises its matrix the same way, then runs every task at every
gain together (`tasks.run_tasks`: one sparse product per step for all of them). Jobs run in
``workers`` processes. The output is a tidy table (`rows`: model, null, alpha, task, metric,
value) and a `stats.summarize` summary per task.

`run` is the experiment of ``wirelab reservoir run`` (and of the tour's reservoir step): an
`ExperimentConfig` in, a result directory out (config.json, score_vs_alpha.png, metrics.json).
config.json holds the resolved configuration (`resolve`: ``normalize="auto"`` replaced by the
normalisation used, the bias in its canonical form), so ``ExperimentConfig(**config["config"])``
repeats the run.

Defaults (measured in docs/reservoir.md, "Choosing the defaults"): every neuron read out
(``outputs="all"``), a random per-neuron bias ``b_i ~ U[-0.2, 0.2]`` (``bias="random:0.2"``),
input scaling 0.3, ``normalize="auto"`` (row for synapse counts, spectral for signed matrices).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.data.connectomes import check_connectome_source, load_connectome
from wirelab.errors import UsageError
from wirelab.progress import progress_bar
from wirelab.reservoir.nulls import NULLS, RADIUS_MATCHED, make_null, match_radius
from wirelab.reservoir.populations import parse_population
from wirelab.reservoir.stats import summarize
from wirelab.reservoir.tasks import TASKS, Setup, run_tasks
from wirelab.reservoir.units import LIFUnits, Units, parse_bias
from wirelab.reservoir.weights import (
    NORMALIZATIONS,
    as_csr,
    normalize,
    resolve_normalization,
    spectral_radius,
)
from wirelab.results import experiment

QUICK = {  # smaller task sizes for tours and tests
    "memory-capacity": {"k_max": 30, "train": 600, "test": 300, "washout": 50},
    "narma10": {"train": 600, "test": 300, "washout": 50},
    "mackey-glass": {"train": 600, "test": 300, "washout": 50, "segments": 8, "warm": 50},
    "decision": {"trials": 120},
    "lorenz": {"train": 600, "test": 300, "washout": 50},
}


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
        """Task keyword arguments: the quick sizes if ``quick``, then ``task_params``."""
        return {**(QUICK.get(task, {}) if self.quick else {}), **self.task_params.get(task, {})}

    def validate(self) -> None:
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
        if self.activation == "lif" and "mackey-glass" in self.tasks:
            raise UsageError("mackey-glass free running feeds predictions back: use rate units")
        self.units(1)

    def units(self, n: int) -> Units | LIFUnits:
        """Rate units, or LIF units (``activation="lif"``, default time constants), for ``n``
        neurons: the bias resolved by `units.parse_bias` (a random bias drawn from ``seed``)."""
        bias = parse_bias(self.bias).vector(n, self.seed)
        if self.activation == "lif":
            return LIFUnits(input_scaling=self.input_scaling, bias=bias)
        return Units(self.activation, self.leak, self.input_scaling, bias)


def resolve(cfg: ExperimentConfig) -> ExperimentConfig:
    """``cfg`` with ``normalize="auto"`` resolved on the connectome's matrix and the bias in its
    canonical form (what config.json records, so the run repeats from it)."""
    # the connectome's own edge types are checked here (a one-line error naming them)
    real = as_csr(load_connectome(cfg.connectome), edge_types=cfg.edge_types)
    how = resolve_normalization(real, cfg.normalize)
    return replace(cfg, normalize=how, bias=str(parse_bias(cfg.bias)))


_BLAS_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _one_blas_thread() -> Any:
    """Limit BLAS to one thread in this process when threadpoolctl is installed."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        return contextlib.nullcontext()
    return threadpool_limits(1)


def check_populations(cfg: ExperimentConfig) -> dict[str, int]:
    """Resolve the input/readout populations up front (a clear error before any work)."""
    con = load_connectome(cfg.connectome)
    inputs = parse_population(con, cfg.inputs)
    sizes = {"inputs": int(inputs.size), "outputs": int(parse_population(con, cfg.outputs).size)}
    if "decision" in cfg.tasks:
        for side in ("left", "right"):
            sizes[f"inputs_{side}"] = int(np.sum(con.side[inputs] == side))
            if sizes[f"inputs_{side}"] == 0:
                raise UsageError(f"the decision task needs {side} neurons in --inputs {cfg.inputs}")
    return sizes


def jobs(cfg: ExperimentConfig) -> list[tuple[str, int]]:
    """``[("connectome", -1), (null_model, i), ...]``; the mirror null is deterministic (one)."""
    out = [("connectome", -1)]
    for kind in cfg.null_models:
        count = min(cfg.nulls, 1) if kind == "mirror" else cfg.nulls
        out += [(kind, i) for i in range(count)]
    return out


def run_job(cfg_dict: dict[str, Any], model: str, index: int) -> dict[str, Any]:
    """Build one network, run every task over all gains; returns its rows and extras."""
    cpu0 = time.process_time()
    cfg = ExperimentConfig(**cfg_dict)
    con = load_connectome(cfg.connectome)
    real = as_csr(con, edge_types=cfg.edge_types)
    if model == "connectome":
        raw = real
    else:
        raw = make_null(model, con, seed=cfg.seed + 1 + index, edge_types=cfg.edge_types)
    how = resolve_normalization(real, cfg.normalize)  # the connectome's, for every network
    w = normalize(raw, how, seed=cfg.seed)
    if model in RADIUS_MATCHED:  # the connectome's spectral radius after the same normalisation
        w = match_radius(w, spectral_radius(normalize(real, how), seed=cfg.seed), cfg.seed)
    inputs = parse_population(con, cfg.inputs)
    setup = Setup(
        weights=[w],
        alphas=np.asarray(cfg.alphas, dtype=np.float64),
        inputs=inputs,
        outputs=parse_population(con, cfg.outputs),
        left=inputs[con.side[inputs] == "left"],
        right=inputs[con.side[inputs] == "right"],
        units=cfg.units(con.n),
        seed=cfg.seed,
        settings={"normalize": how, "bias": cfg.bias, "model": model, "null": index},
    )
    rows: list[dict[str, Any]] = []
    extras: dict[str, Any] = {
        "model": model,
        "null": index,
        "spectral_radius": spectral_radius(w, seed=cfg.seed),
    }
    results = run_tasks(cfg.tasks, setup, {t: cfg.params(t) for t in cfg.tasks})
    for task, res in results.items():  # every task and gain in one product per step
        scores = {(task, res.metric, res.higher_is_better): res.scores[0]}
        if "free_running_nrmse" in res.detail:
            scores[("mackey-glass-84", "NRMSE_84", False)] = res.detail["free_running_nrmse"][0]
        if "accuracy_by_strength" in res.detail:
            extras["accuracy_by_strength"] = res.detail["accuracy_by_strength"][0].tolist()
            extras["strengths"] = res.detail["strengths"]
        for (name, metric, _), vals in scores.items():
            for alpha, v in zip(cfg.alphas, vals, strict=True):
                rows.append(
                    {
                        "model": model,
                        "null": index,
                        "alpha": float(alpha),
                        "task": name,
                        "metric": metric,
                        "value": float(v),
                    }
                )
        if "lambda_on_edge" in res.detail:  # the fraction of fits whose lambda the grid binds
            extras.setdefault("lambda_on_edge", {})[task] = float(res.detail["lambda_on_edge"])
        for line in res.detail.get("warnings", []):
            extras.setdefault("warnings", []).append(f"{model} {index}: {line}")
        extras.setdefault("definitions", {})[task] = res.definition
        extras.setdefault("higher_is_better", {}).update({name: hib for (name, _, hib) in scores})
    extras["cpu_seconds"] = time.process_time() - cpu0
    return {"rows": rows, "extras": extras}


def run_experiment(
    cfg: ExperimentConfig, progress: Callable[[int, int, str], None] | None = None
) -> dict[str, Any]:
    """Run every job in ``cfg.workers`` processes and summarise; ``progress(done, total, what)``."""
    cfg.validate()
    cfg = resolve(cfg)
    todo = jobs(cfg)
    cfg_dict = asdict(cfg)
    results: list[dict[str, Any]] = []
    workers = min(cfg.workers, len(todo))
    if workers == 1:
        with _one_blas_thread():
            for i, (model, idx) in enumerate(todo):
                results.append(run_job(cfg_dict, model, idx))
                if progress:
                    progress(i + 1, len(todo), f"{model} {idx}")
    else:
        # fresh (spawned) workers with one BLAS thread each: a 2-thread OpenBLAS per worker was
        # measured to spin and slow small solves ~300x on the shared 2-core machine
        saved = {k: os.environ.get(k) for k in _BLAS_VARS}
        os.environ.update({k: "1" for k in _BLAS_VARS})
        try:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
                futs = {pool.submit(run_job, cfg_dict, m, i): (m, i) for m, i in todo}
                for done, fut in enumerate(as_completed(futs)):
                    results.append(fut.result())
                    if progress:
                        progress(done + 1, len(todo), "{} {}".format(*futs[fut]))
        finally:
            for var, old in saved.items():
                if old is None:
                    os.environ.pop(var, None)
                else:
                    os.environ[var] = old
    results.sort(
        key=lambda r: (
            r["extras"]["model"] != "connectome",
            r["extras"]["model"],
            r["extras"]["null"],
        )
    )
    rows = [row for r in results for row in r["rows"]]
    hib: dict[str, bool] = {}
    definitions: dict[str, str] = {}
    for r in results:
        hib.update(r["extras"]["higher_is_better"])
        definitions.update(r["extras"]["definitions"])
    by_model: dict[str, Any] = {}
    for kind in cfg.null_models:
        sub = [row for row in rows if row["model"] in ("connectome", kind)]
        by_model[kind] = summarize(sub, hib)
    summary: dict[str, Any] = (
        by_model[cfg.null_models[0]] if cfg.null_models else summarize(rows, hib)
    )
    networks = [
        {k: v for k, v in r["extras"].items() if k not in ("definitions", "higher_is_better")}
        for r in results
    ]
    warnings = [line for r in results for line in r["extras"].get("warnings", [])]
    return {
        "cpu_seconds": float(sum(r["extras"]["cpu_seconds"] for r in results)),
        "results": rows,
        "summary": summary,
        "summary_by_null_model": by_model,
        "definitions": definitions,
        "networks": networks,
        "warnings": warnings,
    }


def run(
    cfg: ExperimentConfig, out: Path, *, overwrite: bool = False, show_progress: bool = True
) -> dict[str, Any]:
    """Validate ``cfg``, score every network (`run_experiment`) into the result directory ``out``.

    Writes config.json first, then score_vs_alpha.png and metrics.json (the metrics of
    `run_experiment` plus ``wall_seconds`` and ``population_sizes``); returns the metrics as
    written. A bad configuration or population is a `UsageError` before ``out`` is created.
    """
    cfg.validate()
    sizes = check_populations(cfg)
    cfg = resolve(cfg)
    with experiment(
        out, command="wirelab reservoir run", config=asdict(cfg), overwrite=overwrite
    ) as rd:
        t0 = time.perf_counter()
        with progress_bar("networks", total=len(jobs(cfg)), show=show_progress) as bar:
            metrics = run_experiment(cfg, lambda done, total, what: bar.update(done))
        metrics["wall_seconds"] = time.perf_counter() - t0
        metrics["population_sizes"] = sizes
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
    colours = {
        "degree": "tab:orange",
        "erdos-renyi": "tab:green",
        "weights": "tab:purple",
        "mirror": "tab:red",
    }
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
            c = colours.get(kind, "grey")
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
        if task in ("narma10", "mackey-glass", "mackey-glass-84", "lorenz"):
            ax.set_yscale("log")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig
