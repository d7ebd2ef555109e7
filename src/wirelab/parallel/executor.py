"""`run_jobs` and `map_jobs`: a list of jobs through the chosen back end, with one progress line.

    results = map_jobs(jobs, ExecOptions(workers=8), shared=experiment, label="networks")

`run_jobs` yields `JobResult` as jobs finish (failed ones too: the caller decides); `map_jobs`
returns the values in job order and stops at the first failed job: the generator is closed (every
other job stops, `wirelab.parallel.local`) and the job's one-line error is raised
(`wirelab.parallel.jobs.raise_failure`). Both show one progress bar (``label``, jobs done of
jobs, back end and workers), or advance the caller's ``bar`` when a study has one of its own.

With ``WIRELAB_JOB_TIMES=FILE`` in the environment every result is also appended to ``FILE`` as
one JSON line (label, key, ok, attempts, seconds, workers): the seconds per job of the cost model
in docs/scale.md (`benchmarks/scale.py`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from wirelab.parallel.jobs import Job, JobResult, raise_failure
from wirelab.parallel.pool import ExecOptions, Pool
from wirelab.progress import ProgressBar, progress_bar

TIMES_VAR = "WIRELAB_JOB_TIMES"


def run_jobs(
    jobs: list[Job],
    options: ExecOptions,
    *,
    shared: Any = None,
    label: str = "jobs",
    show: bool = True,
    bar: ProgressBar | None = None,
    pool: Pool | None = None,
) -> Generator[JobResult, None, None]:
    """Every job's result, as it finishes.

    Args:
        jobs: the jobs; a result's ``index`` is its job's place in this list.
        options: where they run (`ExecOptions`: back end, workers, address, retries, threads).
        shared: one object every job receives first (``fn(shared, *args)``), sent once per
            worker; None: ``fn(*args)``.
        label: the progress line's name; ``show=False`` hides it; ``bar``: advance the caller's.
        pool: a pool already built from ``options`` (e.g. its `Pool.subprocess_pool`); default
            ``options.pool(len(jobs))``.

    Returns:
        A generator of `JobResult`, failed jobs included (``error`` set): the caller decides.
        Closing it early stops every job still running.

    Example:
        `for r in run_jobs([Job("a", math.factorial, (5,))], ExecOptions(workers=1)): r.value`
    """
    if not jobs:
        return
    pool = pool or options.pool(len(jobs))
    with contextlib.ExitStack() as stack:
        if bar is None:
            desc = f"{label}: {len(jobs)} jobs, {options.backend} x{pool.workers}"
            bar = stack.enter_context(progress_bar(desc, total=len(jobs), show=show))
        results = pool.run(jobs, shared)
        stack.callback(_close, results)  # the pool's cleanup runs now, not when collected
        log = os.environ.get(TIMES_VAR)
        for result in results:
            bar.advance()
            if log:
                _log_time(Path(log), label, result, pool.workers)
            yield result


def _log_time(path: Path, label: str, r: JobResult, workers: int) -> None:
    rec = {"label": label, "key": r.key, "ok": r.ok, "attempts": r.attempts}
    rec |= {"seconds": round(r.seconds, 4), "workers": workers}
    with open(path, "a") as fh:
        fh.write(json.dumps(rec) + "\n")


def _close(results: Iterator[JobResult]) -> None:
    close = getattr(results, "close", None)
    if callable(close):
        close()


def map_jobs(
    jobs: list[Job],
    options: ExecOptions,
    *,
    shared: Any = None,
    label: str = "jobs",
    show: bool = True,
    bar: ProgressBar | None = None,
    on_result: Callable[[JobResult], None] | None = None,
) -> list[Any]:
    """The values of ``jobs`` in job order; the first failure stops the rest and is raised.

    Arguments as for `run_jobs`; ``on_result`` sees each successful result as it comes (to save
    it, say).

    Returns:
        ``[value of job 0, value of job 1, ...]``, whatever order they finished in.

    Raises:
        JobFailed: a job raised (or lost its worker more often than ``options.retries`` allows);
            a `WirelabError` raised in a job is raised again with its own class and message.

    Example:
        `map_jobs([Job(str(n), math.factorial, (n,)) for n in range(5)], ExecOptions(workers=2))`
        is ``[1, 1, 2, 6, 24]``.
    """
    values: list[Any] = [None] * len(jobs)
    results = run_jobs(jobs, options, shared=shared, label=label, show=show, bar=bar)
    try:
        for result in results:
            raise_failure(result)
            values[result.index] = result.value
            if on_result is not None:
                on_result(result)
    finally:
        _close(results)
    return values
