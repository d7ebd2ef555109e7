"""The executor's interface: a `Pool` runs a list of jobs and yields their results as they finish.

Back ends are the `POOLS` registry, the one registry of where jobs run (``--backend`` of every
study command and of ``wirelab sweep``): ``local`` (`wirelab.parallel.local`: worker processes
here, or the jobs in this process when ``workers == 1``) and ``ray`` (`wirelab.parallel.ray_pool`,
imported only when chosen: tasks on a Ray cluster, started here or joined at ``--address``).
`ExecOptions` is what a study's configuration holds: back end, workers (None: the cores this
process may use), cluster address, retries and threads per job.

Jobs that only wait on a subprocess of their own (a sweep's points) ask the back end for
`Pool.subprocess_pool`: the ``local`` back end drives them from threads of this process
(`ThreadPool`), since a process per waiting job would only add start-up; a back end whose jobs run
elsewhere (``ray``: `Pool.remote` is true) runs them as it runs any job, and their files travel
back with their values.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from typing import Any, ClassVar

from wirelab.errors import UsageError
from wirelab.parallel.address import parse_address
from wirelab.parallel.jobs import DEFAULT_RETRIES, Job, JobResult, call, default_workers, error_line
from wirelab.registry import Registry


class Pool:
    """A back end: ``run(jobs, shared)`` yields one `JobResult` per job, in the order they finish;
    leaving the generator early stops every job still running.

    A subclass registered in `POOLS` (one line) is a ``--backend`` of every study command and of
    ``wirelab sweep``. It is built with ``workers`` (jobs at once), ``threads`` (BLAS threads per
    job), ``retries`` (extra attempts for a job whose worker was lost) and ``address`` (a
    cluster's; only for entries registered with ``address=True``).

    Example:
        ```python
        class SerialPool(Pool):             # the jobs one after another, here (no shared)
            def run(self, jobs, shared=None):
                for i, job in enumerate(jobs):
                    yield JobResult(i, job.key, job.fn(*job.args))

        POOLS.add("serial", SerialPool, "the jobs in order here")   # --backend serial
        ```
    """

    remote: ClassVar[bool] = False
    """Whether jobs may run on another machine: what a job writes to disk stays there, so a job
    that makes files (a sweep's point) must send them back with its value."""

    def __init__(
        self,
        *,
        workers: int,
        threads: int = 1,
        retries: int = DEFAULT_RETRIES,
        address: str | None = None,
    ) -> None:
        self.workers, self.threads, self.retries, self.address = workers, threads, retries, address

    @classmethod
    def check_address(cls, address: str) -> None:
        """One-line error unless ``address`` can be this back end's cluster: by default its form
        (``HOST:PORT``, `wirelab.parallel.address.parse_address`, exit 2); a back end may also
        check, with a bounded time, that the cluster answers (``ray``: exit 1 when not)."""
        parse_address(address)

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        """Run ``jobs`` (``fn(shared, *args)``, or ``fn(*args)`` without ``shared``); yield each
        `JobResult` as its job finishes. Closing the generator stops every job still running."""
        raise NotImplementedError

    def subprocess_pool(self, stop: Callable[[], None] | None = None) -> Pool:
        """The pool for jobs that only wait on subprocesses of their own (a sweep's points): by
        default this pool itself. ``stop`` ends those subprocesses; a pool that drives the jobs
        from threads of this process calls it when its run ends, however it ends (`ThreadPool`).
        """
        return self


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


# Jobs at once, at most: far above any machine's or cluster's cores here, far below what
# would exhaust processes or memory just in bookkeeping (``--workers 10**20`` hung before).
MAX_WORKERS = 4096

POOLS = Registry[type[Pool]]("executor back end")
"""The back ends (``--backend``): name -> `Pool` subclass; ``address=True`` marks those that join a
cluster at ``--address``."""
POOLS.add("local", "wirelab.parallel.local:LocalPool", "worker processes on this machine")
POOLS.add(
    "ray", "wirelab.parallel.ray_pool:RayPool", "tasks on a Ray cluster (pip: ray)", address=True
)


@dataclass(frozen=True)
class ExecOptions:
    """Where a study's jobs run: ``--backend`` (a `POOLS` name), ``--workers`` (None: every core
    this process may use), ``--address`` (a Ray cluster; none: Ray starts one here), ``retries``
    (extra attempts for a job whose worker was lost) and ``threads`` per job (BLAS threads).

    Example:
        `ExecOptions("ray", workers=4, address="10.0.0.1:6379").pool(n_jobs)` joins that cluster.
    """

    backend: str = "local"
    workers: int | None = None
    address: str | None = None
    retries: int = DEFAULT_RETRIES
    threads: int = 1

    def validate(self) -> None:
        """One-line error for options that cannot work (before any work): a `UsageError`, or a
        `WirelabError` for a cluster ``address`` where none answers (`Pool.check_address`:
        ``HOST:PORT``, and for ``ray`` a Ray head answering within a few seconds)."""
        POOLS.get(self.backend)
        if self.workers is not None and not 1 <= self.workers <= MAX_WORKERS:
            raise UsageError(f"--workers must be 1 to {MAX_WORKERS:,}, got {self.workers}")
        if self.address and not POOLS.fact(self.backend, "address"):
            takes = [n for n in POOLS.names() if POOLS.fact(n, "address")]
            raise UsageError(f"--address only applies to --backend {' or '.join(takes)}")
        if self.address:
            POOLS.get(self.backend).check_address(self.address)
        if self.retries < 0 or self.threads < 1:
            raise UsageError("retries must be >= 0 and threads >= 1")

    @property
    def n_workers(self) -> int:
        """``workers``, or the cores this process may use."""
        return self.workers or default_workers()

    def pool(self, n_jobs: int) -> Pool:
        """The back end, built for ``n_jobs`` jobs (never more workers than jobs)."""
        self.validate()
        cls = POOLS.get(self.backend)
        workers = max(1, min(self.n_workers, n_jobs))
        return cls(
            workers=workers, threads=self.threads, retries=self.retries, address=self.address
        )
