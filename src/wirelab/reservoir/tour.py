"""Tour step: memory capacity of the larval connectome vs degree-preserving nulls.

The readout is the 182 DN-VNC neurons (the brain's output to the body), not the default whole
brain (2,952 neurons): the same question with a readout a sixteenth the size, short enough for
a tour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.errors import MissingDataError, SkipStep
from wirelab.reservoir import experiment

TASK = "memory-capacity"  # the tour's question: does the connectome remember more?


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    sizes = (
        {"k_max": 30, "train": 400, "test": 200, "washout": 30}
        if quick
        else {"k_max": 50, "train": 800, "test": 400, "washout": 50}
    )
    cfg = experiment.ExperimentConfig(
        tasks=[TASK],
        alphas=[0.6, 1.0, 1.4] if quick else [0.4, 0.7, 1.0, 1.3, 1.6],
        outputs="DN-VNC",
        nulls=2 if quick else 5,
        workers=1 if quick else 2,
        task_params={TASK: sizes},
    )
    try:
        metrics = experiment.run(cfg, out / TASK, overwrite=True)
    except MissingDataError as exc:
        raise SkipStep(f"larval connectome missing: {exc}") from None
    s = metrics["summary"][TASK]
    return {
        "MC connectome": f"{s['connectome']:.2f}",
        "MC nulls": f"{s['null_mean']:.2f}+-{s['null_std']:.2f}",
        "best alpha": s["best_alpha"],
        "p": f"{s['p_value']:.2f}",
    }
