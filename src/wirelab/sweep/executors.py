"""Where points run: `EXECUTORS`, the registry that ``wirelab sweep --backend`` chooses from.

Every executor is an `Executor` subclass: it is built with the sweep's ``workers``, ``threads`` (per
point), ``retries``, ``timeout`` (seconds, finite and > 0, else a one-line `UsageError`) and
``address``, and its ``run(tasks)`` yields one `Outcome` per
task as tasks finish; the driver (`wirelab.sweep.sweep`) writes them down.

Both run through the one executor of every study (`wirelab.parallel`): a point is a job.

- ``local``: ``workers`` threads (`wirelab.parallel.pool.ThreadPool`: the job only waits on its
  subprocess), each running one point's command as a subprocess whose thread
  pools (OpenMP, MKL, OpenBLAS, torch via ``OMP_NUM_THREADS``) are capped at
  ``threads`` (default ``cpus // workers``), so that the machine is not oversubscribed. Each
  subprocess is its own process group (`wirelab.sweep.procs`); when ``run`` is left early (an
  error, a signal, the generator closed) the running groups are killed before it returns.
- ``ray`` (`wirelab.sweep.ray_executor`, imported only when chosen): tasks on a Ray cluster
  (`wirelab.parallel.ray_pool`).

Adding an executor is one module with an `Executor` subclass plus one ``EXECUTORS.add`` line.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from wirelab.errors import UsageError
from wirelab.parallel.jobs import Job, default_workers
from wirelab.parallel.pool import ThreadPool
from wirelab.registry import Registry
from wirelab.sweep.procs import ProcessGroups
from wirelab.sweep.runner import Outcome, run_point


@dataclass(frozen=True)
class Task:
    """One point to run: its id, its command line without ``--out``, and its directory."""

    id: str
    argv: list[str]
    out: Path


__all__ = [
    "EXECUTORS",
    "Executor",
    "LocalExecutor",
    "Task",
    "default_workers",
    "threads_per_worker",
]


def threads_per_worker(workers: int, cpus: int | None = None) -> int:
    return max(1, (cpus or os.cpu_count() or 1) // workers)


class Executor:
    """Runs a sweep's tasks; ``run`` yields their outcomes in the order they finish."""

    takes_address: ClassVar[bool] = False  # whether ``--address`` means anything to it

    def __init__(
        self,
        *,
        workers: int,
        threads: int,
        retries: int,
        timeout: float | None,
        address: str | None = None,
    ) -> None:
        if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
            raise UsageError(f"--timeout must be a finite number of seconds > 0, got {timeout}")
        self.workers, self.threads, self.retries = workers, threads, retries
        self.timeout, self.address = timeout, address
        self.groups = ProcessGroups()  # the point processes running now (local runs)

    def run(self, tasks: list[Task]) -> Iterator[Outcome]:
        raise NotImplementedError

    def run_one(self, task: Task, cwd: str | None = None) -> Outcome:
        """`run_point` for one task in its own directory, with this executor's budget."""
        argv = [*task.argv, "--out", str(task.out)]
        return run_point(
            task.id,
            argv,
            str(task.out),
            threads=self.threads,
            retries=self.retries,
            timeout=self.timeout,
            cwd=cwd,
            groups=self.groups,
        )


class LocalExecutor(Executor):
    """``workers`` threads here, each driving one point's subprocess at a time."""

    def run(self, tasks: list[Task]) -> Iterator[Outcome]:
        cwd = os.getcwd()
        jobs = [Job(t.id, self.run_one, (t, cwd)) for t in tasks]
        results = ThreadPool(workers=self.workers, stop=self.groups.kill_all).run(jobs)
        try:
            for r in results:
                yield r.value if r.ok else Outcome(r.key, "failed", 1, r.seconds, r.error)
        finally:
            results.close()  # the pool kills the points' groups (``stop``), then joins threads


EXECUTORS = Registry[type[Executor]]("sweep executor")
EXECUTORS.add("local", LocalExecutor, "worker threads running the points as subprocesses here")
EXECUTORS.add("ray", "wirelab.sweep.ray_executor:RayExecutor", "tasks on a Ray cluster (pip: ray)")
