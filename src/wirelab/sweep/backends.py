"""Where points run: worker threads driving subprocesses here, or tasks on a Ray cluster.

Both yield `Outcome`s as points finish; the driver (`wirelab.sweep.sweep`) writes them down.

- ``local``: ``workers`` threads, each running one point's command as a subprocess whose thread
  pools (OpenMP, MKL, OpenBLAS, torch via ``OMP_NUM_THREADS``) are capped at
  ``threads`` (default ``cpus // workers``), so that the machine is not oversubscribed.
- ``ray``: ``ray.init(address)`` joins an existing cluster, or with no address starts a local one
  with ``workers * threads`` CPUs. Each point is a task reserving ``threads`` CPUs that runs the
  command in a temporary directory on its node and returns the files; Ray re-runs a task whose
  worker died (``max_retries``), the point itself retries a failing command ``retries`` times,
  and a task that still fails is recorded as failed, without stopping the sweep.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wirelab.errors import UsageError, WirelabError
from wirelab.sweep.runner import Outcome, run_point, run_point_shipped


@dataclass(frozen=True)
class Task:
    """One point to run: its id, its command line without ``--out``, and its directory."""

    id: str
    argv: list[str]
    out: Path


def threads_per_worker(workers: int, cpus: int | None = None) -> int:
    return max(1, (cpus or os.cpu_count() or 1) // workers)


def run_local(
    tasks: list[Task], *, workers: int, threads: int, retries: int, timeout: float | None
) -> Iterator[Outcome]:
    cwd = os.getcwd()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sweep") as pool:
        pending: set[Future[Outcome]] = set()
        queue = list(reversed(tasks))
        while queue or pending:
            while queue and len(pending) < workers:
                t = queue.pop()
                argv = [*t.argv, "--out", str(t.out)]
                pending.add(
                    pool.submit(
                        run_point,
                        t.id,
                        argv,
                        str(t.out),
                        threads=threads,
                        retries=retries,
                        timeout=timeout,
                        cwd=cwd,
                    )
                )
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise WirelabError(
            "the ray backend needs Ray: pip install 'wirelab[ray]' (or pip install ray)"
        ) from None
    return ray


def run_ray(
    tasks: list[Task],
    *,
    workers: int,
    threads: int,
    retries: int,
    timeout: float | None,
    address: str | None,
) -> Iterator[Outcome]:
    ray = _ray()
    started_here = False
    if not ray.is_initialized():
        kwargs: dict[str, object] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if address:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = workers * threads  # so that `workers` tasks run at once
            kwargs["object_store_memory"] = 256 * 2**20
        try:
            ray.init(**kwargs)
        except ConnectionError as exc:
            raise UsageError(f"cannot connect to the Ray cluster at {address}: {exc}") from None
        except Exception as exc:  # Ray raises a bare Exception when its node does not start
            if address:
                raise
            raise WirelabError(
                f"Ray could not start a local node ({' '.join(str(exc).split())[:200]}); on a "
                "heavily loaded machine its agents can miss the raylet's start-up deadline "
                "(see /tmp/ray/session_latest/logs/raylet.err); retry, or use --backend local"
            ) from None
        started_here = True
    try:
        remote = ray.remote(num_cpus=threads, max_retries=2)(run_point_shipped)
        cwd = os.getcwd()
        refs = {
            remote.remote(
                t.id, t.argv, threads=threads, retries=retries, timeout=timeout, cwd=cwd
            ): t
            for t in tasks
        }
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1)
            ref = done[0]
            task = refs.pop(ref)
            try:
                yield ray.get(ref)
            except Exception as exc:  # a task that Ray could not complete (worker lost, ...)
                text = " ".join(str(exc).split())[:500]
                yield Outcome(task.id, "failed", 1 + 2, 0.0, f"ray: {type(exc).__name__}: {text}")
    finally:
        if started_here:
            ray.shutdown()
