"""Gradients of the numba kernels on one and on two threads, computed in a child process.

The thread-count tests need two numba threads, and a test process started with
``NUMBA_NUM_THREADS=1`` (the single-core runs) cannot raise that; so the child starts with
``NUMBA_NUM_THREADS=2``, computes every gradient of a few layer shapes once with
``kernels.set_threads(1)`` (the serial kernel) and once with ``set_threads(2)`` (the threaded
one, used for every size: ``PARALLEL_MIN_WORK = 0``), and saves them for the test to compare.

    python -m tests.logic.kernel_threads gather_gate|learned_gate OUT.pt
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import torch

# (inputs, gates, candidates, batch): batches below, at and past the 16-column minimum chunk,
# odd ones (vector remainders), one gate block and several
SHAPES = [(50, 70, 1, 1), (40, 200, 5, 33), (300, 130, 16, 100), (64, 64, 8, 257), (90, 9, 3, 16)]


def _inputs(n_in: int, n: int, k: int, bsz: int, seed: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {
        "x": torch.rand(n_in, bsz, generator=g),
        "ca": torch.randint(0, n_in, (n, k), generator=g),
        "cb": torch.randint(0, n_in, (n, k), generator=g),
        "pa": torch.softmax(torch.randn(n, k, generator=g), 1),
        "pb": torch.softmax(torch.randn(n, k, generator=g), 1),
        "c": torch.randn(n, 4, generator=g),
        "gy": torch.randn(n, bsz, generator=g),
    }


def gradients(family: str, t: dict[str, torch.Tensor]) -> list[torch.Tensor]:
    """The output and every gradient of one pass of ``family`` on the inputs ``t``."""
    from wirelab.logic import kernels, learned_kernels

    x = t["x"].clone().requires_grad_()
    c = t["c"].clone().requires_grad_()
    if family == "gather_gate":
        y = kernels.gather_gate(x, t["ca"][:, 0], t["cb"][:, 0], c, "numba")
        return [y.detach(), *torch.autograd.grad((y * t["gy"]).sum(), [x, c])]
    pa, pb = t["pa"].clone().requires_grad_(), t["pb"].clone().requires_grad_()
    y = learned_kernels.learned_gate(x, t["ca"], pa, t["cb"], pb, c)
    return [y.detach(), *torch.autograd.grad((y * t["gy"]).sum(), [x, pa, pb, c])]


def main(family: str, out: str) -> None:
    import numba

    from wirelab.logic import kernels

    kernels.PARALLEL_MIN_WORK = 0
    result = []
    for seed, shape in enumerate(SHAPES):
        t = _inputs(*shape, seed)
        runs = {}
        for threads in (1, 2):
            kernels.set_threads(threads)
            used = kernels._threads(1)
            runs[threads] = (used, numba.get_num_threads(), gradients(family, t))
        result.append((shape, runs))
    torch.save(result, out)


def one_and_two_threads(family: str, tmp: Path) -> list[tuple[tuple[int, ...], dict]]:
    """Run `main` in a child with two numba threads; ``[(shape, {threads: (kernel threads,
    numba threads, gradients)})]``."""
    out = tmp / f"{family}.pt"
    env = {**os.environ, "NUMBA_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "tests.logic.kernel_threads", family, str(out)]
    subprocess.run(cmd, env=env, check=True, cwd=Path(__file__).parents[2])
    return torch.load(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
