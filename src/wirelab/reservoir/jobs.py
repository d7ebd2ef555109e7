"""The jobs of a `ResolvedExperiment`: one per network, every task at every gain together.

One job per network (the connectome, or null ``i`` of a null model built with seed ``seed + 1 +
i``); each job normalises its matrix as the connectome's was, then runs every task at every gain
together (`tasks.run_plans`: one sparse product per step for all of them). Jobs run through
`wirelab.parallel` (`wirelab.reservoir.experiment.run`), each worker given the resolved experiment
once (nothing is loaded again). The output (`summarise`) is a tidy table (``results``: model, null,
alpha, task, metric, value; one row group per `tasks.Metric` of every task) and a `stats.summarize`
summary per metric label against each null model (``summary_by_null_model``; ``summary``: the
first, ``degree`` by default, beside ``degree-boundary``). `evaluate` runs every job of a resolved
experiment and summarises them: what ``wirelab reservoir run`` writes to metrics.json and what
`wirelab.reservoir.compare` returns."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.parallel import Job, map_jobs
from wirelab.reservoir.config import ResolvedExperiment
from wirelab.reservoir.nulls import NULLS, make_null, match_radius
from wirelab.reservoir.ridge import readout_solver
from wirelab.reservoir.stats import summarize
from wirelab.reservoir.tasks import Setup, Task, TaskResult, run_plans
from wirelab.reservoir.weights import normalize, spectral_radius


def network_weights(exp: ResolvedExperiment, model: str, index: int) -> sp.csr_matrix:
    """The normalised ``(N, N)`` matrix of the network ``(model, index)``: the connectome's, or
    null ``index`` of ``model`` normalised the connectome's way (radius-matched null models then
    rescaled to the normalised connectome's spectral radius)."""
    cfg = exp.config
    if model == "connectome":
        return exp.weights
    raw = make_null(model, exp.connectome, seed=cfg.seed + 1 + index, edge_types=cfg.edge_types)
    w = normalize(raw, cfg.normalize, seed=cfg.seed)
    if NULLS.get(model).radius_matched:
        target = spectral_radius(normalize(exp.real, cfg.normalize), seed=cfg.seed)
        w = match_radius(w, target, cfg.seed)
    return w


def run_job(exp: ResolvedExperiment, model: str, index: int) -> dict[str, Any]:
    """Build one network, run every task over all gains; returns its rows and extras."""
    cpu0 = time.process_time()
    cfg = exp.config
    w = network_weights(exp, model, index)
    setup = Setup(
        weights=[w],
        alphas=np.asarray(cfg.alphas, dtype=np.float64),
        inputs=exp.inputs,
        outputs=exp.outputs,
        left=exp.left,
        right=exp.right,
        units=cfg.units(exp.connectome.n),
        seed=cfg.seed,
        settings={"normalize": cfg.normalize, "bias": cfg.bias, "model": model, "null": index},
    )
    rows: list[dict[str, Any]] = []
    extras: dict[str, Any] = {
        "model": model,
        "null": index,
        "spectral_radius": spectral_radius(w, seed=cfg.seed),
    }
    with readout_solver(cfg.readout_solver):  # every task's readout: --readout-solver
        results = run_plans(exp.tasks, setup, {t: cfg.params(t) for t in exp.tasks})
    for name, res in results.items():  # every task and gain in one product per step
        rows += _collect(name, exp.tasks[name], res, cfg.alphas, extras)
    extras["cpu_seconds"] = time.process_time() - cpu0
    return {"rows": rows, "extras": extras}


def _collect(
    name: str, task: Task, res: TaskResult, alphas: list[float], extras: dict[str, Any]
) -> list[dict[str, Any]]:
    """The rows of one task's result (every metric at every gain); its network detail, lambda
    edge fraction, warnings, definition and directions added to ``extras``."""
    model, index = extras["model"], extras["null"]
    for key in task.network_detail:  # arrays are (M, ...): this job's one network
        value = res.detail[key]
        extras[key] = value[0].tolist() if isinstance(value, np.ndarray) else value
    rows = [
        {
            "model": model,
            "null": index,
            "alpha": float(alpha),
            "task": label,
            "metric": metric.name,
            "value": float(v),
        }
        for label, metric in task.labelled(name)
        for alpha, v in zip(alphas, metric.scores(res)[0], strict=True)
    ]
    if "lambda_on_edge" in res.detail:  # the fraction of fits whose lambda the grid binds
        extras.setdefault("lambda_on_edge", {})[name] = float(res.detail["lambda_on_edge"])
    for line in res.detail.get("warnings", []):
        extras.setdefault("warnings", []).append(f"{model} {index}: {line}")
    extras.setdefault("definitions", {})[name] = res.definition
    hib = {label: metric.higher_is_better for label, metric in task.labelled(name)}
    extras.setdefault("higher_is_better", {}).update(hib)
    return rows


def summarise(results: list[dict[str, Any]], null_models: list[str]) -> dict[str, Any]:
    """The jobs' results (connectome first, then by model and null index) as metrics: rows, a
    summary per metric label against the first null model and against each, definitions,
    per-network extras and warnings."""
    results = sorted(
        results,
        key=lambda r: (
            r["extras"]["model"] != "connectome",
            r["extras"]["model"],
            r["extras"]["null"],
        ),
    )
    rows = [row for r in results for row in r["rows"]]
    hib: dict[str, bool] = {}
    definitions: dict[str, str] = {}
    for r in results:
        hib.update(r["extras"]["higher_is_better"])
        definitions.update(r["extras"]["definitions"])
    by_model: dict[str, Any] = {}
    for kind in null_models:
        sub = [row for row in rows if row["model"] in ("connectome", kind)]
        by_model[kind] = summarize(sub, hib)
    summary: dict[str, Any] = by_model[null_models[0]] if null_models else summarize(rows, hib)
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


def evaluate(exp: ResolvedExperiment, *, show_progress: bool = True) -> dict[str, Any]:
    """Every job of ``exp`` (`ResolvedExperiment.jobs`, through `wirelab.parallel` with ``exp``
    shared by every job) summarised (`summarise`), plus ``population_sizes`` and, where the
    connectome cannot have a default null model, ``null_models_left_out`` ``{name: reason}``
    (`ResolvedExperiment.nulls_left_out`: ``degree-boundary`` without cell classes)."""
    jobs = [Job(f"{model} {index}", run_job, (model, index)) for model, index in exp.jobs()]
    executor = exp.config.executor()
    results = map_jobs(jobs, executor, shared=exp, label="networks", show=show_progress)
    metrics = summarise(results, exp.config.null_models)
    if exp.nulls_left_out:
        metrics["null_models_left_out"] = dict(exp.nulls_left_out)
    metrics["population_sizes"] = exp.population_sizes
    return metrics
