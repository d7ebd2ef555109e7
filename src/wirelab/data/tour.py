"""Tour step: load both datasets from verified files and record what they hold."""

from __future__ import annotations

from pathlib import Path

from wirelab.data import summary
from wirelab.errors import MissingDataError, SkipStep


def run(out: Path, quick: bool = False) -> dict[str, object]:
    try:
        metrics = summary.run(summary.SummaryConfig(), out, overwrite=True)
    except MissingDataError as exc:
        raise SkipStep(str(exc)) from exc
    larva, mnist = metrics["larva"], metrics["mnist"]
    return {
        "larva": f"{larva['neurons']} neurons, {larva['synapses']} synapses",
        "mnist": f"{mnist['train']}+{mnist['test']} images",
    }
