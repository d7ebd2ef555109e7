"""One torch thread for the attention tests: the tensors are tiny, and on a shared 2-core machine
two threads per process oversubscribe the cores (each small op then waits on thread hand-offs)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
