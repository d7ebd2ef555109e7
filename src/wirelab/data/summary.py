"""The data experiment: load every dataset from its verified files and record what it holds.

`run` writes a result directory whose metrics are ``{connectome: Connectome.summary(), "mnist":
mnist_info()}`` (neurons, edges, synapses, edge types and populations; image counts, shape and
class counts), all read from the real files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wirelab.data.connectomes import load_connectome
from wirelab.data.mnist import mnist_info
from wirelab.results import experiment


@dataclass
class SummaryConfig:
    connectome: str = "larva"


def run(cfg: SummaryConfig, out: Path, *, overwrite: bool = False) -> dict[str, Any]:
    """Load the datasets (a missing file raises `MissingDataError` before ``out`` is created),
    then write their summaries as metrics.json; returns the metrics as written."""
    connectome = load_connectome(cfg.connectome).summary()
    mnist = mnist_info()
    with experiment(
        out, command="wirelab.data.summary.run", config=asdict(cfg), overwrite=overwrite
    ) as rd:
        return rd.finish({cfg.connectome: connectome, "mnist": mnist})
