"""Run directories for the circuit commands: an untrained (random) discrete net saved as a
finished ``wirelab logic train`` run would be."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wirelab.logic.circuit.synthetic import random_net
from wirelab.logic.datasets import dataset_shape
from wirelab.results import ResultDir


def make_run(path: Path, dataset: str = "mnist") -> Path:
    """A run directory holding a random 0-vs-1 discrete net (layers 48, 24) on ``dataset``."""
    h, w = dataset_shape(dataset)
    net = random_net([48, 24], features=h * w, num_classes=2, tau=2.0, seed=3)
    meta = {"dataset": dataset, "classes": [0, 1]}
    net = type(net)(np.full((h * w, 1), 0.5), net.layers, 2, 2.0, meta)
    rd = ResultDir.create(path, command="test", config={"dataset": dataset, "classes": "0,1"})
    net.save(rd.path / "discrete.json")
    rd.write_metrics({"gates": net.gates})
    return rd.path
