"""A sweep's points as jobs of the one executor (`wirelab.parallel.run_jobs`).

Each `Task` (one point, or one batched command) becomes a `wirelab.parallel.Job`; the back end
comes from `wirelab.parallel.POOLS`, the registry every study uses. Its `Pool.subprocess_pool`
runs them: for ``local``, ``workers`` threads here (`wirelab.parallel.ThreadPool`), each running
one point's command as a subprocess in the point's directory, its thread pools capped at
``threads``, in its own process group (`wirelab.sweep.procs`); when the run is left early (an
error, a signal, the generator closed) those groups are killed before the threads are joined.
For a back end whose jobs run elsewhere (``ray``: `Pool.remote`), each point runs in a temporary
directory on its node and its files travel back in its `Outcome` (`run_point_shipped`); a job
the back end could not complete (a lost node, say) is a failed point whose error names the back
end (``ray: ...``), and the sweep goes on.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

from wirelab.parallel import ExecOptions, Job, JobResult, run_jobs
from wirelab.sweep.procs import ProcessGroups
from wirelab.sweep.runner import Outcome, run_point, run_point_shipped


@dataclass(frozen=True)
class Task:
    """One command to run: its id, its command line without ``--out``, and its directory."""

    id: str
    argv: list[str]
    out: Path


def run_here(
    task: Task,
    threads: int,
    retries: int,
    timeout: float | None,
    cwd: str,
    groups: ProcessGroups,
) -> Outcome:
    """`run_point` of one task in its own directory, its process groups kept in ``groups``."""
    argv = [*task.argv, "--out", str(task.out)]
    return run_point(
        task.id,
        argv,
        str(task.out),
        threads=threads,
        retries=retries,
        timeout=timeout,
        cwd=cwd,
        groups=groups,
    )


def run_shipped(
    point_id: str,
    argv: list[str],
    threads: int,
    retries: int,
    timeout: float | None,
    cwd: str,
) -> Outcome:
    """`run_point_shipped` with positional arguments (a job's, run on a remote worker)."""
    return run_point_shipped(
        point_id, argv, threads=threads, retries=retries, timeout=timeout, cwd=cwd
    )


def failed_outcome(result: JobResult, backend: str, remote: bool) -> Outcome:
    """The outcome of a job that raised or that the back end could not complete; a remote back
    end's errors start with its name (``ray: worker lost ...``)."""
    error = result.error
    if remote and not error.startswith(f"{backend}: "):
        error = f"{backend}: {error}"
    return Outcome(result.key, "failed", result.attempts, result.seconds, error)


def run_points(
    tasks: list[Task],
    options: ExecOptions,
    *,
    retries: int,
    timeout: float | None,
    groups: ProcessGroups,
) -> Generator[Outcome, None, None]:
    """Every task's `Outcome`, as tasks finish (``options.threads`` threads per point, ``1 +
    retries`` attempts of its command, ``timeout`` seconds per attempt). Closing the generator
    stops every point still running."""
    if not tasks:
        return
    backend = options.pool(len(tasks))
    budget = (options.threads, retries, timeout, os.getcwd())
    if backend.remote:
        jobs = [Job(t.id, run_shipped, (t.id, t.argv, *budget)) for t in tasks]
    else:
        jobs = [Job(t.id, run_here, (t, *budget, groups)) for t in tasks]
    pool = backend.subprocess_pool(groups.kill_all)
    results = run_jobs(jobs, options, pool=pool, label="points", show=False)
    try:
        for r in results:
            yield r.value if r.ok else failed_outcome(r, options.backend, backend.remote)
    finally:
        results.close()  # the pool stops the points (local: kills their groups), then ends
