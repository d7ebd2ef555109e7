"""`SweepOptions`: how a sweep runs its points; the one set of defaults ``wirelab sweep`` reads.

The back end is any entry of `wirelab.parallel.POOLS` (the one registry of where jobs run: every
study command's ``--backend`` is the same list), with the sweep's own settings on top: threads per
point (default ``CPUs // workers``), a timeout per attempt, batching, and whether points may
outlive a driver killed outright.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from wirelab.errors import UsageError
from wirelab.parallel import ExecOptions, default_workers

WORKER_RETRIES = 2  # re-runs of a point whose worker was lost (a Ray worker or node died)


def threads_per_worker(workers: int, cpus: int | None = None) -> int:
    """``cpus // workers`` (at least 1): the thread budget of each of ``workers`` points at once,
    so that the machine is not oversubscribed (``cpus``: default ``os.cpu_count()``)."""
    return max(1, (cpus or os.cpu_count() or 1) // workers)


@dataclass(frozen=True)
class SweepOptions:
    """Where and how a sweep's points run (the options of ``wirelab sweep``, same defaults).

    Attributes:
        backend: a `wirelab.parallel.POOLS` name: ``local`` (threads here, each driving one
            point's subprocess) or ``ray`` (each point a Ray task; its files travel back).
        workers: points at once; None: the cores this process may use.
        threads: threads per point (``OMP_NUM_THREADS`` and friends); None: ``CPUs // workers``.
        address: the Ray cluster to join (``ray`` only); None: Ray starts a local node.
        timeout: seconds before one attempt of a point is killed; None: no limit.
        batch: run points that differ only in the grid's ``[batch]`` key as one command.
        outlive: points keep running if the driver dies without cleaning up (SIGKILL); by
            default they die with it (`wirelab.parallel.tether`).

    Example:
        `SweepOptions(backend="ray", workers=2).exec_options()` is the `ExecOptions` its points
        run with.
    """

    backend: str = "local"
    workers: int | None = None
    threads: int | None = None
    address: str | None = None
    timeout: float | None = None
    batch: bool = True
    outlive: bool = False

    @property
    def n_workers(self) -> int:
        """``workers``, or the cores this process may use."""
        return default_workers() if self.workers is None else self.workers

    @property
    def n_threads(self) -> int:
        """``threads``, or ``CPUs // workers`` (at least 1)."""
        if self.threads is not None:
            return self.threads
        return threads_per_worker(max(1, self.n_workers))

    def exec_options(self) -> ExecOptions:
        """The executor's options for the points (back end, workers, address, threads; a point
        whose worker was lost is run again up to `WORKER_RETRIES` times)."""
        return ExecOptions(
            self.backend, self.n_workers, self.address, WORKER_RETRIES, self.n_threads
        )

    def validate(self) -> None:
        """One-line `UsageError` for options that cannot work, before anything is written."""
        self.exec_options().validate()
        t = self.timeout
        if t is not None and not (math.isfinite(t) and t > 0):
            raise UsageError(f"--timeout must be a finite number of seconds > 0, got {t}")
