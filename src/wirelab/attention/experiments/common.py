"""Helpers shared by the attention experiments: threads and seeds, the result directory, the
plotting backend."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from wirelab.errors import UsageError
from wirelab.plotting import pyplot as pyplot
from wirelab.results import ResultDir, experiment


def setup(seed: int, threads: int) -> None:
    """Seed python, numpy and torch; fix the number of torch threads."""
    if threads < 1:
        raise UsageError(f"--threads must be >= 1, got {threads}")
    torch.set_num_threads(threads)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@contextmanager
def result_dir(
    name: str, cfg: Any, out: Path | str, *, overwrite: bool, seed: int
) -> Iterator[ResultDir]:
    """Seed and set threads (`setup`), then ``experiment(out)`` for ``wirelab attention NAME``
    with the config dataclass ``cfg``; call it after the config is validated."""
    setup(seed, cfg.threads)
    with experiment(
        out, command=f"wirelab attention {name}", config=asdict(cfg), overwrite=overwrite
    ) as rd:
        yield rd
