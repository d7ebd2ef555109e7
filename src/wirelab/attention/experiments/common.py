"""Helpers shared by the attention experiments: threads and seeds, the plotting backend."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import torch

from wirelab.errors import UsageError


def setup(seed: int, threads: int) -> None:
    """Seed python, numpy and torch; fix the number of torch threads."""
    if threads < 1:
        raise UsageError(f"--threads must be >= 1, got {threads}")
    torch.set_num_threads(threads)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
