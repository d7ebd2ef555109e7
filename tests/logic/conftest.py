"""Logic tests run torch on one thread: on a shared 2-core machine, torch's idle OpenMP threads
spin and make tiny ops ~15x slower (measured: 0.14 s vs 0.009 s per step of a 3-bit parity net)."""

import pytest
import torch

from wirelab.logic import kernels


@pytest.fixture(autouse=True)
def _one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
    kernels.set_threads(None)
