"""The executor's interface: a `Pool` runs a list of jobs and yields their results as they finish.

Back ends are the `POOLS` registry (``--backend``): ``local`` (`wirelab.parallel.local`: worker
processes here, or the jobs in this process when ``workers == 1``) and ``ray``
(`wirelab.parallel.ray_pool`, imported only when chosen: tasks on a Ray cluster, started here or
joined at ``--address``). `ExecOptions` is what a study's configuration holds: back end, workers
(None: the cores this process may use), cluster address, retries and threads per job.
`ThreadPool` serves jobs that only wait on a subprocess (the sweep's points): threads, not
processes, drive them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from typing import Any

from wirelab.errors import UsageError
from wirelab.parallel.jobs import DEFAULT_RETRIES, Job, JobResult, call, default_workers, error_line
from wirelab.registry import Registry


class Pool:
    """Runs jobs: ``run(jobs, shared)`` yields one `JobResult` per job, in the order they finish;
    leaving the generator early stops every job still running."""

    def __init__(
        self,
        *,
        workers: int,
        threads: int = 1,
        retries: int = DEFAULT_RETRIES,
        address: str | None = None,
    ) -> None:
        self.workers, self.threads, self.retries, self.address = workers, threads, retries, address

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        raise NotImplementedError


class ThreadPool(Pool):
    """``workers`` threads in this process, for jobs that wait on their own subprocesses; a job
    that raises is reported, not retried. ``stop`` (called first when the run ends, however it
    ends) stops those subprocesses, so that the threads can then be joined."""

    def __init__(self, *, workers: int, stop: Callable[[], None] | None = None) -> None:
        super().__init__(workers=workers)
        self.stop = stop

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="job")
        try:
            pending: dict[Future[Any], int] = {}
            queue = list(reversed(range(len(jobs))))
            while queue or pending:
                while queue and len(pending) < self.workers:
                    i = queue.pop()
                    pending[pool.submit(_timed, jobs[i].fn, shared, jobs[i].args)] = i
                done, _ = wait_futures(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = pending.pop(fut)
                    exc = fut.exception()
                    if exc is None:
                        value, seconds = fut.result()
                        yield JobResult(i, jobs[i].key, value, seconds=seconds)
                    else:
                        cls, line = error_line(exc)
                        yield JobResult(i, jobs[i].key, None, line, cls)
        finally:
            if self.stop is not None:
                self.stop()
            pool.shutdown(wait=True, cancel_futures=True)


def _timed(fn: Callable[..., Any], shared: Any, args: tuple[Any, ...]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    return call(fn, shared, args), time.perf_counter() - t0


POOLS = Registry[type[Pool]]("executor back end")
POOLS.add("local", "wirelab.parallel.local:LocalPool", "worker processes on this machine")
POOLS.add(
    "ray", "wirelab.parallel.ray_pool:RayPool", "tasks on a Ray cluster (pip: ray)", address=True
)


@dataclass(frozen=True)
class ExecOptions:
    """Where a study's jobs run: ``--backend``, ``--workers`` (None: every core this process may
    use), ``--address`` (a Ray cluster; none: Ray starts one here), retries and threads per job."""

    backend: str = "local"
    workers: int | None = None
    address: str | None = None
    retries: int = DEFAULT_RETRIES
    threads: int = 1

    def validate(self) -> None:
        """One-line `UsageError` for options that cannot work (before any work)."""
        POOLS.get(self.backend)
        if self.workers is not None and self.workers < 1:
            raise UsageError(f"--workers must be at least 1, got {self.workers}")
        if self.address and not POOLS.fact(self.backend, "address"):
            takes = [n for n in POOLS.names() if POOLS.fact(n, "address")]
            raise UsageError(f"--address only applies to --backend {' or '.join(takes)}")
        if self.retries < 0 or self.threads < 1:
            raise UsageError("retries must be >= 0 and threads >= 1")

    @property
    def n_workers(self) -> int:
        return self.workers or default_workers()

    def pool(self, n_jobs: int) -> Pool:
        """The back end, built for ``n_jobs`` jobs (never more workers than jobs)."""
        self.validate()
        cls = POOLS.get(self.backend)
        workers = max(1, min(self.n_workers, n_jobs))
        return cls(
            workers=workers, threads=self.threads, retries=self.retries, address=self.address
        )
