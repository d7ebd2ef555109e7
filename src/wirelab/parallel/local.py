"""The ``local`` back end: worker processes on this machine (and the in-process serial path).

`ProcessPool` starts ``workers`` processes (``spawn``: a fresh interpreter each, nothing
inherited but the environment, whose thread pools are capped at ``threads``), sends each the
shared object once, then one job at a time through a pipe; results come back as jobs finish. A
worker that dies (killed for memory, a crash) is replaced and its job retried per the policy of
`wirelab.parallel.jobs`.

Cancellation, one path: whatever ends the generator (its end, an error, Ctrl-C's
``KeyboardInterrupt``, SIGTERM, which `wirelab.lifetime.sigterm_raises` turns into an exception,
or the consumer closing it) runs its ``finally``: every worker is sent SIGTERM (raised in the
worker as ``SystemExit``, so a job's own cleanup runs), then SIGKILL after a grace period, and is
joined. A driver killed outright (SIGKILL) takes its workers with it: each worker asks the kernel
for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``, `wirelab.parallel.tether`). No worker
outlives the run.

`InlinePool` runs the jobs one after another in this process (``workers == 1``): no start-up,
the same functions, so the same results.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Generator
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from typing import Any

from wirelab.parallel.jobs import Job, JobResult, blas_env, call, error_line
from wirelab.parallel.pool import Pool, ThreadPool
from wirelab.parallel.tether import tether

GRACE = 3.0  # seconds a stopped worker has to clean up before SIGKILL


def _stop_here(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def worker_main(conn: Connection, env: dict[str, str], parent: int) -> None:
    """A worker: set the environment, tie its life to ``parent``, then run jobs until told to
    stop (``None``) or the pipe closes. Replies ``("ok", index, value)`` or ``("error", index,
    class, line)``; Ctrl-C and SIGTERM end it quietly (the driver reports)."""
    os.environ.update(env)
    signal.signal(signal.SIGTERM, _stop_here)
    tether()
    if os.getppid() != parent:  # the driver ended before the tether was set
        return
    with contextlib.suppress(EOFError, OSError, KeyboardInterrupt, SystemExit):
        shared = conn.recv()
        while (msg := conn.recv()) is not None:
            index, fn, args = msg
            try:
                reply: tuple[Any, ...] = ("ok", index, call(fn, shared, args))
            except Exception as exc:
                reply = ("error", index, *error_line(exc))
            try:
                conn.send(reply)
            except Exception as exc:  # the value could not be pickled
                conn.send(("error", index, *error_line(exc)))
    # Done: a SIGTERM from the driver's clean-up now ends the process quietly. Raised as
    # SystemExit during the interpreter's own exit (atexit callbacks), it printed a traceback.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class _Worker:
    """One worker process, its pipe, and the job it runs now ``(index, attempt, start)``."""

    def __init__(self, ctx: Any, env: dict[str, str], shared: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, env, os.getpid()))
        self.proc.start()
        child.close()
        self.job: tuple[int, int, float] | None = None
        self.conn.send(shared)

    def give(self, index: int, attempt: int, job: Job) -> None:
        self.job = (index, attempt, time.perf_counter())
        self.conn.send((index, job.fn, job.args))

    def stop(self) -> None:
        """Ask it to end (SIGTERM), without waiting."""
        with contextlib.suppress(OSError, ValueError):
            self.conn.close()
        if self.proc.is_alive():
            self.proc.terminate()


def _finish(workers: list[_Worker]) -> None:
    """SIGTERM every worker, SIGKILL those still alive after `GRACE` seconds, join them all."""
    for w in workers:
        w.stop()
    deadline = time.monotonic() + GRACE
    for w in workers:
        w.proc.join(max(0.0, deadline - time.monotonic()))
        if w.proc.is_alive():
            w.proc.kill()
            w.proc.join()


class ProcessPool(Pool):
    """``workers`` spawned processes (module docstring)."""

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        ctx = get_context("spawn")
        env = blas_env(self.threads)
        queue = deque((i, 1) for i in range(len(jobs)))
        workers: list[_Worker] = []
        try:
            workers = [_Worker(ctx, env, shared) for _ in range(min(self.workers, len(jobs)))]
            while queue or any(w.job for w in workers):
                for k, w in enumerate(workers):
                    if w.job is None and queue:
                        index, attempt = queue.popleft()
                        try:
                            w.give(index, attempt, jobs[index])
                        except (BrokenPipeError, EOFError, ConnectionError):
                            workers[k] = self._replace(w, ctx, env, shared)
                            queue.appendleft((index, attempt))
                busy = [w for w in workers if w.job]
                if not busy:
                    continue
                wait([w.conn for w in busy] + [w.proc.sentinel for w in busy])
                for k, w in enumerate(workers):
                    result = self._collect(w, jobs)
                    if result is None and w.job is not None and not w.proc.is_alive():
                        workers[k] = self._replace(w, ctx, env, shared)
                        result = self._lost(w, jobs, queue)  # w: the dead one
                    if result is not None:
                        yield result
        finally:
            _finish(workers)

    def _collect(self, w: _Worker, jobs: list[Job]) -> JobResult | None:
        """The reply of ``w``'s job if one has come, else None."""
        if w.job is None:
            return None
        try:
            if not w.conn.poll():
                return None
            reply = w.conn.recv()
        except (EOFError, OSError):  # the worker is ending: let its exit be seen
            w.proc.join(1.0)
            return None
        index, attempt, t0 = w.job
        w.job = None
        seconds = time.perf_counter() - t0
        if reply[0] == "ok":
            return JobResult(index, jobs[index].key, reply[2], attempts=attempt, seconds=seconds)
        _, _, cls, line = reply
        return JobResult(index, jobs[index].key, None, line, cls, attempt, seconds)

    def _replace(self, w: _Worker, ctx: Any, env: dict[str, str], shared: Any) -> _Worker:
        """A fresh worker in place of ``w`` (ended now); ``w`` keeps its job for the caller."""
        _finish([w])
        return _Worker(ctx, env, shared)

    def _lost(self, w: _Worker, jobs: list[Job], queue: deque[tuple[int, int]]) -> JobResult | None:
        """A worker died running its job: retry it, or report it failed."""
        assert w.job is not None
        index, attempt, t0 = w.job
        w.job = None
        if attempt <= self.retries:
            queue.appendleft((index, attempt + 1))
            return None
        code = w.proc.exitcode
        line = f"worker lost: its process ended (exit code {code}) while running the job"
        return JobResult(index, jobs[index].key, None, line, "", attempt, time.perf_counter() - t0)


class InlinePool(Pool):
    """The jobs in order, in this process (BLAS capped at ``threads`` where threadpoolctl is)."""

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        for index, job in enumerate(jobs):
            t0 = time.perf_counter()
            with _thread_limit(self.threads):
                try:
                    value = call(job.fn, shared, job.args)
                except Exception as exc:
                    cls, line = error_line(exc)
                    yield JobResult(index, job.key, None, line, cls, 1, time.perf_counter() - t0)
                    continue
            yield JobResult(index, job.key, value, seconds=time.perf_counter() - t0)


def _thread_limit(threads: int) -> Any:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        return contextlib.nullcontext()
    return threadpool_limits(threads)


class LocalPool(Pool):
    """``--backend local``: `InlinePool` for one worker, else `ProcessPool`; jobs that only wait on
    subprocesses run from ``workers`` threads of this process (`ThreadPool`)."""

    def subprocess_pool(self, stop: Callable[[], None] | None = None) -> Pool:
        return ThreadPool(workers=self.workers, stop=stop)

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        cls = InlinePool if self.workers == 1 else ProcessPool
        pool = cls(workers=self.workers, threads=self.threads, retries=self.retries)
        yield from pool.run(jobs, shared)
