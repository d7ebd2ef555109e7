"""The memory a reservoir study will need, estimated before any work, and the refusal when it
will not fit.

`study_memory` adds up what a study holds at its peak (bytes, float64 states)::

    shared   = 4 S(E) + 200 N                     the connectome (total and per type), its raw
                                                  and normalised matrix; per-neuron tables
    job      = 3 S(E) + 64 E                      a null's raw, normalised and transposed matrix;
                                                  the rewiring's edge arrays and hash set
             + 8 N (2 C + D)                      state columns x, z and the precomputed drive
             + 8 sum_blocks (T_b - w_b) G B_b P   the recorded readout states
             + 8 (5 T P + 2 min(T, P)^2)          one readout fit: copies of its rows, the Gram
    peak     = base + shared + job                            one worker (jobs in the driver)
             = base + shared + W (base + shared + job)        W > 1 local workers

with ``base`` = `BASE_BYTES` a process's interpreter and libraries (numpy, scipy, torch: a
2,000-neuron study reading out 19 neurons peaked at 500 MB; with it the estimate of a
2,000-neuron NARMA-10 study reading out every neuron was 1,262 MB against 1,249 MB measured),
``S(E) = 12 E + 4 (N + 1)`` one CSR matrix of E edges (float64 values, int32 indices), C the
state columns of all blocks (sequences B x gains G), ``D = min(max(32 MB / 8N, C), 4 C)`` the
drive's columns (`engine.DRIVE_BYTES`, `engine.SPAN`), P the readout population, T its longest
recorded block. The blocks are each task's first round (its plan's first ``yield``, run on
nothing: inputs drawn, no step taken). `check_study_memory` compares the peak with the memory
available now (`wirelab.cli_options.available_memory`: /proc/meminfo MemAvailable, a cgroup's
room) and raises `StudyMemoryError` (one line, exit 1) when it does not fit, before a result
directory exists; where only fewer workers fit, the default worker count is lowered instead.

Example: every neuron of a generated 140,000-neuron brain read out (``--outputs all``) needs
tens of GB of recorded states and is refused on a 23 GB machine; ``--outputs descending`` fits
(docs/scale.md has the measured run and the line).
"""

from __future__ import annotations

import inspect
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from wirelab.cli_options import available_memory
from wirelab.errors import WirelabError
from wirelab.parallel.jobs import default_workers
from wirelab.reservoir.engine import DRIVE_BYTES, SPAN
from wirelab.reservoir.tasks import Setup

ResolvedExperiment = Any  # `config.ResolvedExperiment` (config imports this module)

BASE_BYTES = 500 * 2**20  # measured: the peak of a study on a tiny connectome (benchmarks/scale.py)
REWIRE_BYTES_PER_EDGE = 64
NEURON_BYTES = 200
FLOAT = 8


class StudyMemoryError(WirelabError):
    """The study will not fit in the memory available (exit 1, one line)."""


@dataclass(frozen=True)
class StudyMemory:
    """The estimate's parts (bytes) and the workers it assumes; ``peak`` the total."""

    shared: float
    matrices: float
    states: float
    recorded: float
    readout: float
    workers: int
    neurons: int
    readout_neurons: int
    steps: int
    columns: int

    @property
    def job(self) -> float:
        return self.matrices + self.states + self.recorded + self.readout

    @property
    def peak(self) -> float:
        if self.workers <= 1:
            return BASE_BYTES + self.shared + self.job
        return BASE_BYTES + self.shared + self.workers * (BASE_BYTES + self.shared + self.job)

    def describe(self) -> str:
        """The largest parts, in words (one line)."""
        gb = 1e9
        return (
            f"recorded states {self.recorded / gb:.3g} GB: {self.readout_neurons:,} readout "
            f"neurons x {self.steps:,} steps x {self.columns} columns; state columns "
            f"{self.states / gb:.3g} GB; matrices {(self.shared + self.matrices) / gb:.3g} GB; "
            f"readout fit {self.readout / gb:.3g} GB; {self.workers} worker(s)"
        )


def _csr_bytes(n: int, nnz: int) -> float:
    return 12.0 * nnz + 4.0 * (n + 1)


def _first_blocks(exp: ResolvedExperiment) -> list[Any]:
    """Every task's first-round blocks (its plan's first ``yield``; no step is taken)."""
    cfg = exp.config
    setup = Setup(
        weights=[exp.weights],
        alphas=np.asarray(cfg.alphas, dtype=float),
        inputs=exp.inputs,
        outputs=exp.outputs,
        left=exp.left,
        right=exp.right,
        units=cfg.units(exp.connectome.n),
        seed=cfg.seed,
    )
    blocks: list[Any] = []
    for name, task in exp.tasks.items():
        plan = task.plan(setup, **cfg.params(name))
        if inspect.isgenerator(plan):
            gen = cast(Generator[list[Any], Any, Any], plan)
            blocks += next(gen)
            gen.close()
    return blocks


def study_memory(exp: ResolvedExperiment, workers: int | None = None) -> StudyMemory:
    """The estimate of the module docstring for ``exp`` run on ``workers`` local workers
    (None: the study's own ``--workers``, or the cores this process may use)."""
    cfg = exp.config
    n, nnz, g = exp.connectome.n, int(exp.real.nnz), len(cfg.alphas)
    jobs = len(exp.jobs())
    if workers is None:
        workers = cfg.workers if cfg.workers is not None else default_workers()
    workers = 1 if cfg.backend != "local" else max(1, min(workers, jobs))
    csr = _csr_bytes(n, nnz)
    columns, recorded, steps, p, rows = 0, 0.0, 0, exp.outputs.size, 0
    for blk in _first_blocks(exp):
        record = exp.outputs.size if blk.record is None else len(blk.record)
        seqs = int(blk.inputs.shape[1])
        columns += seqs * g
        kept = max(blk.length - blk.washout, 0)
        recorded += FLOAT * kept * g * seqs * record
        steps = max(steps, blk.length)
        rows = max(rows, kept * seqs)
    drive = min(max(DRIVE_BYTES / (FLOAT * n), columns), SPAN * columns)
    return StudyMemory(
        shared=4 * csr + NEURON_BYTES * n,
        matrices=3 * csr + REWIRE_BYTES_PER_EDGE * nnz,
        states=FLOAT * n * (2 * columns + drive),
        recorded=recorded,
        readout=FLOAT * (5 * rows * p + 2 * min(rows, p) ** 2),
        workers=workers,
        neurons=n,
        readout_neurons=int(p),
        steps=steps,
        columns=columns,
    )


def check_study_memory(exp: ResolvedExperiment) -> ResolvedExperiment:
    """``exp`` if its study fits in the memory available now; with the default worker count
    lowered to the most that fit; else a one-line `StudyMemoryError`."""
    free = available_memory()
    if free is None:
        return exp
    est = study_memory(exp)
    if est.peak <= free:
        return exp
    fewer = " or fewer workers (--workers)"
    if exp.config.workers is None and est.workers > 1:
        for w in range(est.workers - 1, 0, -1):
            if study_memory(exp, w).peak <= free:
                return replace(exp, config=replace(exp.config, workers=w))
        est, fewer = study_memory(exp, 1), ""  # not even one worker fits: say what one needs
    raise StudyMemoryError(
        f"the study needs about {est.peak / 1e9:.3g} GB ({est.describe()}) but "
        f"{free / 1e9:.3g} GB is available: read out fewer neurons (--outputs) or run fewer "
        f"gains (--alpha){fewer}"
    )
