"""Tour step: does the larval connectome remember more than its plain and boundary rewirings?

The question is the first registered task whose own metric the report prefers as a headline
(`wirelab.reservoir.tasks.Metric.headline`: memory capacity). The run is sized to answer it: 19
nulls of each of two families (`NULL_MODELS`): the plain degree-preserving rewiring, which gives
the larva about 24 times its sensory-to-descending shortcuts, and the boundary-preserving one,
which keeps every cell-class-to-class edge count (docs/reservoir-nulls.md), so the empirical p-value
``(1 + #{nulls >= connectome}) / (19 + 1)`` can reach 0.05; the gain the cross-species study
found best for this readout (docs/results/reservoir.md, "Across species": larva, DN-VNC
readout, memory capacity, degree nulls: alpha 1.0) and one on each side of it (`ALPHAS`), so
that the plot shows the connectome's curve over the nulls' band; the readout is the 182 DN-VNC
neurons (the brain's output to the body), a ridge fit on 182 features instead of the whole
brain's 2,952.
``quick`` uses the task's own ``--quick`` sizes (600 training steps), the full tour its default
sizes (3,000).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.errors import MissingDataError, SkipStep
from wirelab.reservoir import experiment
from wirelab.reservoir.tasks import TASKS

NULLS = 19  # the smallest p-value n nulls can give is 1 / (n + 1) = 0.05
NULL_MODELS = ["degree", "degree-boundary"]  # both families on every connectome-vs-nulls card
ALPHAS = [0.6, 1.0, 1.4]  # 1.0: the best gain of the cross-species study (DN-VNC, degree nulls)
READOUT = "DN-VNC"


def headline_task() -> str:
    """The first registered task whose own metric (``metrics[0]``) is a report headline."""
    return next(name for name in TASKS if TASKS.get(name).metrics[0].headline)


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    task = headline_task()
    cfg = experiment.ExperimentConfig(
        tasks=[task],
        alphas=ALPHAS,
        outputs=READOUT,
        nulls=NULLS,
        null_models=NULL_MODELS,
        workers=2,
        quick=quick,
    )
    try:
        metrics = experiment.run(cfg, out / task, overwrite=True)
    except MissingDataError as exc:
        raise SkipStep(f"larval connectome missing: {exc}") from None
    s = metrics["summary"][task]
    row: dict[str, Any] = {"task": task, "connectome": f"{s['connectome']:.2f}"}
    for kind in NULL_MODELS:
        f = metrics["summary_by_null_model"][kind][task]
        row[kind] = (
            f"{f['null_mean']:.2f}+-{f['null_std']:.2f} ({f['n_nulls']}), p {f['p_value']:.2f}"
        )
    row["alpha"] = s["best_alpha"]
    return row
