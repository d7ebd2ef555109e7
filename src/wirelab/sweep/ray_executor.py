"""The ``ray`` sweep executor: each point is a Ray task; imported only when ``--backend ray``.

``ray.init(address)`` joins an existing cluster, or with no address starts a local one with
``workers * threads`` CPUs. Each point is a task reserving ``threads`` CPUs that runs the command
in a temporary directory on its node and returns the files; Ray re-runs a task whose worker died
(``max_retries``), the point itself retries a failing command ``retries`` times, and a task that
still fails is recorded as failed, without stopping the sweep.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from wirelab.errors import UsageError, WirelabError
from wirelab.sweep.executors import Executor, Task
from wirelab.sweep.runner import Outcome, run_point_shipped

RAY_TASK_RETRIES = 2  # Ray's own re-runs of a task whose worker died


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise WirelabError(
            "the ray backend needs Ray: pip install 'wirelab[ray]' (or pip install ray)"
        ) from None
    return ray


class RayExecutor(Executor):
    """Points as Ray tasks; the files of each point travel back to the driver."""

    takes_address = True

    def run(self, tasks: list[Task]) -> Iterator[Outcome]:
        ray = _ray()
        started_here = False
        if not ray.is_initialized():
            self._init(ray)
            started_here = True
        try:
            yield from self._run_tasks(ray, tasks)
        finally:
            if started_here:
                ray.shutdown()

    def _init(self, ray: Any) -> None:
        kwargs: dict[str, object] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if self.address:
            kwargs["address"] = self.address
        else:
            kwargs["num_cpus"] = self.workers * self.threads  # so that `workers` tasks run at once
            kwargs["object_store_memory"] = 256 * 2**20
        try:
            ray.init(**kwargs)
        except ConnectionError as exc:
            raise UsageError(
                f"cannot connect to the Ray cluster at {self.address}: {exc}"
            ) from None
        except Exception as exc:  # Ray raises a bare Exception when its node does not start
            if self.address:
                raise
            raise WirelabError(
                f"Ray could not start a local node ({' '.join(str(exc).split())[:200]}); on a "
                "heavily loaded machine its agents can miss the raylet's start-up deadline "
                "(see /tmp/ray/session_latest/logs/raylet.err); retry, or use --backend local"
            ) from None

    def _run_tasks(self, ray: Any, tasks: list[Task]) -> Iterator[Outcome]:
        remote = ray.remote(num_cpus=self.threads, max_retries=RAY_TASK_RETRIES)(run_point_shipped)
        cwd = os.getcwd()
        refs = {
            remote.remote(
                t.id,
                t.argv,
                threads=self.threads,
                retries=self.retries,
                timeout=self.timeout,
                cwd=cwd,
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
                attempts = 1 + RAY_TASK_RETRIES
                yield Outcome(
                    task.id, "failed", attempts, 0.0, f"ray: {type(exc).__name__}: {text}"
                )
