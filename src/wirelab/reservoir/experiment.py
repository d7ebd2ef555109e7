"""A connectome-vs-nulls experiment: every task, every gain, the connectome and N nulls.

`run` is the experiment of ``wirelab reservoir run`` (and of the tour's reservoir step): an
`ExperimentConfig` in, a result directory out (config.json, score_vs_alpha.png, metrics.json). It
resolves the configuration once (`config.resolve_experiment`: every setting checked, the connectome
loaded, its edge types selected, the normalisation and bias resolved, the input and readout
populations and the task entries looked up) into a `config.ResolvedExperiment`, before the result
directory exists, and hands that to the jobs (`jobs.run_job`: one per network, the connectome or
null ``i`` of a null model, every task at every gain together), run by the executor of every study
(`wirelab.parallel`: ``--backend``, ``--workers``, ``--address``). config.json holds the resolved
configuration (``normalize="auto"`` replaced by the normalisation used, the bias in its canonical
form), so ``ExperimentConfig(**config["config"])`` repeats the run.

Defaults (measured in docs/reservoir.md, "Choosing the defaults"): every neuron read out
(``outputs="all"``), a random per-neuron bias ``b_i ~ U[-0.2, 0.2]`` (``bias="random:0.2"``),
input scaling 0.3, ``normalize="auto"`` (row for synapse counts, spectral for signed matrices).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.plotting import pyplot
from wirelab.reservoir.config import (
    ExperimentConfig,
    ResolvedExperiment,
    resolve,
    resolve_experiment,
)
from wirelab.reservoir.jobs import evaluate
from wirelab.reservoir.nulls import NULLS
from wirelab.reservoir.tasks import metric_of
from wirelab.results import experiment

__all__ = [
    "ExperimentConfig",
    "ResolvedExperiment",
    "plot_scores",
    "resolve",
    "resolve_experiment",
    "run",
]


def run(
    cfg: ExperimentConfig, out: Path, *, overwrite: bool = False, show_progress: bool = True
) -> dict[str, Any]:
    """Resolve ``cfg`` once, score every network (`jobs.evaluate`: `jobs.run_job` through
    `wirelab.parallel`, what `wirelab.reservoir.compare` runs) into the result directory ``out``.

    Writes config.json first, then score_vs_alpha.png and metrics.json (the metrics of
    `jobs.summarise` plus ``wall_seconds`` and ``population_sizes``); returns the metrics as
    written. A bad configuration or population is a `UsageError` before ``out`` is created.
    """
    exp = resolve_experiment(cfg)
    config = asdict(exp.config)
    with experiment(out, command="wirelab reservoir run", config=config, overwrite=overwrite) as rd:
        t0 = time.perf_counter()
        metrics = evaluate(exp, show_progress=show_progress)
        population_sizes = metrics.pop("population_sizes")  # keeps metrics.json's key order
        metrics["wall_seconds"] = time.perf_counter() - t0
        metrics["population_sizes"] = population_sizes
        rd.save_figure(plot_scores(metrics), "score_vs_alpha")
        return rd.finish(metrics)


def plot_scores(metrics: dict[str, Any], tasks: Sequence[str] | None = None) -> Any:
    """Score vs alpha per task: the connectome's line over each null model's band."""
    plt = pyplot()

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
