"""Helpers shared by the attention experiments: threads, seeds, progress bars, plotting backend."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from wirelab.errors import UsageError


def setup(seed: int, threads: int) -> None:
    """Seed python, numpy and torch; fix the number of torch threads."""
    if threads < 1:
        raise UsageError(f"--threads must be >= 1, got {threads}")
    torch.set_num_threads(threads)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@contextmanager
def progress_bar(show: bool = True) -> Iterator[Progress]:
    """A rich progress bar (disabled when ``show`` is False, e.g. in tests)."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        disable=not show,
        transient=False,
    ) as p:
        yield p


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
