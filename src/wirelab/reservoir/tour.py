"""Tour step: memory capacity of the larval connectome vs degree-preserving nulls."""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from wirelab.errors import MissingDataError


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    from wirelab.errors import SkipStep
    from wirelab.reservoir.cli import finite_or_none
    from wirelab.reservoir.experiment import ExperimentConfig, plot_scores, run_experiment
    from wirelab.results import ResultDir

    sizes = (
        {"k_max": 30, "train": 400, "test": 200, "washout": 30}
        if quick
        else {"k_max": 50, "train": 800, "test": 400, "washout": 50}
    )
    cfg = ExperimentConfig(
        tasks=["memory-capacity"],
        alphas=[0.6, 1.0, 1.4] if quick else [0.4, 0.7, 1.0, 1.3, 1.6],
        nulls=2 if quick else 5,
        workers=1 if quick else 2,
        task_params={"memory-capacity": sizes},
    )
    try:
        from wirelab.reservoir.experiment import check_populations

        check_populations(cfg)
    except MissingDataError as exc:
        raise SkipStep(f"larval connectome missing: {exc}") from None
    rd = ResultDir.create(
        out / "memory-capacity", command="wirelab tour (reservoir)", config=asdict(cfg)
    )
    t0 = time.perf_counter()
    metrics = run_experiment(cfg)
    metrics["wall_seconds"] = time.perf_counter() - t0
    rd.save_figure(plot_scores(metrics), "score_vs_alpha")
    rd.write_metrics(finite_or_none(metrics))
    s = metrics["summary"]["memory-capacity"]
    return {
        "MC connectome": f"{s['connectome']:.2f}",
        "MC nulls": f"{s['null_mean']:.2f}+-{s['null_std']:.2f}",
        "best alpha": s["best_alpha"],
        "p": f"{s['p_value']:.2f}",
    }
