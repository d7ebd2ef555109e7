"""The data experiment: load every dataset from its verified files and record what it holds.

`run` writes a result directory whose metrics are ``{connectome: Connectome.summary()}`` plus
``{name: Dataset.info()}`` for every registered dataset that describes itself (`DATASETS`, in
registry order; MNIST: image counts, shape and class counts), all read from the real files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wirelab.data.connectomes import load_connectome
from wirelab.data.datasets import DATASETS
from wirelab.results import experiment


@dataclass
class SummaryConfig:
    connectome: str = "larva"


def dataset_infos() -> dict[str, dict[str, object]]:
    """``{name: Dataset.info()}`` of every registered dataset with an ``info``."""
    entries = {name: DATASETS.get(name) for name in DATASETS}
    return {name: ds.info() for name, ds in entries.items() if ds.info is not None}


def run(cfg: SummaryConfig, out: Path, *, overwrite: bool = False) -> dict[str, Any]:
    """Load the datasets (a missing file raises `MissingDataError` before ``out`` is created),
    then write their summaries as metrics.json; returns the metrics as written."""
    connectome = load_connectome(cfg.connectome).summary()
    infos = dataset_infos()
    with experiment(
        out, command="wirelab.data.summary.run", config=asdict(cfg), overwrite=overwrite
    ) as rd:
        return rd.finish({cfg.connectome: connectome, **infos})
