"""Tour step: load both datasets from verified files and record what they hold."""

from __future__ import annotations

from pathlib import Path

from wirelab.errors import MissingDataError
from wirelab.results import ResultDir


def run(out: Path, quick: bool = False) -> dict[str, object]:
    from wirelab.data.connectome import load_larva
    from wirelab.data.mnist import mnist_info
    from wirelab.errors import SkipStep

    rd = ResultDir.create(out, command="wirelab tour (data)", config={"quick": quick})
    try:
        larva = load_larva().summary()
        mnist = mnist_info()
    except MissingDataError as exc:
        raise SkipStep(str(exc)) from exc
    rd.write_metrics({"larva": larva, "mnist": mnist})
    return {
        "larva": f"{larva['neurons']} neurons, {larva['synapses']} synapses",
        "mnist": f"{mnist['train']}+{mnist['test']} images",
    }
