"""The ``ray`` sweep executor: each point is a Ray task; imported only when ``--backend ray``.

The points go through the Ray back end of every study (`wirelab.parallel.ray_pool`):
``ray.init(address)`` joins an existing cluster, or with no address starts a local one with
``workers * threads`` CPUs. Each point is a task reserving ``threads`` CPUs that runs the command
in a temporary directory on its node and returns the files; Ray re-runs a task whose worker died
(``max_retries``), the point itself retries a failing command ``retries`` times, and a task that
still fails is recorded as failed, without stopping the sweep.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from wirelab.parallel.jobs import Job
from wirelab.parallel.ray_pool import RayPool
from wirelab.sweep.executors import Executor, Task
from wirelab.sweep.runner import Outcome, run_point_shipped

RAY_TASK_RETRIES = 2  # Ray's own re-runs of a task whose worker died


def shipped(
    point_id: str,
    argv: list[str],
    threads: int,
    retries: int,
    timeout: float | None,
    cwd: str,
) -> Outcome:
    """`run_point_shipped` with positional arguments (a job's)."""
    return run_point_shipped(
        point_id, argv, threads=threads, retries=retries, timeout=timeout, cwd=cwd
    )


class RayExecutor(Executor):
    """Points as Ray tasks; the files of each point travel back to the driver."""

    takes_address = True

    def run(self, tasks: list[Task]) -> Iterator[Outcome]:
        cwd = os.getcwd()
        args = (self.threads, self.retries, self.timeout, cwd)
        jobs = [Job(t.id, shipped, (t.id, t.argv, *args)) for t in tasks]
        pool = RayPool(
            workers=self.workers,
            threads=self.threads,
            retries=RAY_TASK_RETRIES,
            address=self.address,
        )
        results = pool.run(jobs)
        try:
            for r in results:
                if r.ok:
                    yield r.value
                else:
                    error = r.error if r.error.startswith("ray: ") else f"ray: {r.error}"
                    yield Outcome(r.key, "failed", r.attempts, r.seconds, error)
        finally:
            results.close()
