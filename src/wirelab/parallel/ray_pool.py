"""The ``ray`` back end: each job a Ray task; imported only when ``--backend ray`` is chosen.

``ray.init(address)`` joins a running cluster (``ray start --head`` on one machine, ``ray start
--address HEAD:PORT`` on the others; docs/scale.md), or with no address starts a local one with
``workers * threads`` CPUs. Each job is a task reserving ``threads`` CPUs; the shared object is put
in Ray's object store once (pickled: see `_task`). Retry policy as everywhere
(`wirelab.parallel.jobs`): Ray re-runs a task whose worker or node died (``max_retries``), and does
not re-run a task that raised. Leaving the generator early cancels the tasks still pending or
running (``ray.cancel(force=True)``) and, when Ray was started here, shuts it down.

The workers import wirelab: a cluster's nodes need the same wirelab and Python (a fly study runs
in the fly environment, Python 3.12, so its cluster is started from that environment).
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import sys
import threading
import time
from collections.abc import Generator
from typing import Any

from wirelab.errors import WirelabError
from wirelab.lifetime import Terminated
from wirelab.parallel.address import probe_address
from wirelab.parallel.jobs import Job, JobResult, call, error_line
from wirelab.parallel.pool import Pool


def import_ray() -> Any:
    """The ``ray`` module, or a one-line error saying how to install it in this environment."""
    try:
        import ray
    except ImportError:
        raise WirelabError(
            f"--backend ray needs Ray in this Python ({sys.executable}): pip install "
            "'wirelab[ray]' there (or use --backend local)"
        ) from None
    return ray


def init_ray(ray: Any, address: str | None, cpus: int) -> None:
    """Join the cluster at ``address``, or start a local one with ``cpus`` CPUs.

    A cluster's address is checked first (`wirelab.parallel.address.probe_address`: its form,
    then a TCP connection and a gRPC answer, each within a few seconds): Ray is never asked to
    join an address where no Ray head answers, since its own client retries there for minutes,
    deaf to SIGTERM, and may crash the process when it gives up. ``ray.init`` replaces this
    process's SIGTERM handler; the run's own (`wirelab.lifetime.sigterm_raises`) is put back, and
    a SIGTERM during ``ray.init`` ends the run as SIGTERM does elsewhere (`Terminated`, 143).
    """
    kwargs: dict[str, object] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if address:
        probe_address(address)
        kwargs["address"] = address
    else:  # "local": a new instance here, never a cluster that happens to run on this machine
        kwargs["address"] = "local"
        kwargs["num_cpus"] = cpus
        kwargs["object_store_memory"] = 256 * 2**20
    main = threading.current_thread() is threading.main_thread()
    on_term = signal.getsignal(signal.SIGTERM) if main else None
    try:
        ray.init(**kwargs)
    except SystemExit as exc:  # SIGTERM while Ray connects: Ray's handler exits with 15
        if exc.code == signal.SIGTERM:
            raise Terminated from None
        raise
    except ConnectionError as exc:
        text = " ".join(str(exc).split())[:200]
        raise WirelabError(f"cannot connect to the Ray cluster at {address}: {text}") from None
    except Exception as exc:  # Ray raises a bare Exception when its node does not start
        text = " ".join(str(exc).split())[:200]
        if address:
            raise WirelabError(f"cannot join the Ray cluster at {address}: {text}") from None
        raise WirelabError(
            f"Ray could not start a local node ({text}); on a heavily loaded machine its agents "
            "can miss the raylet's start-up deadline (see /tmp/ray/session_latest/logs/"
            "raylet.err); retry, or use --backend local"
        ) from None
    finally:
        if on_term is not None:
            signal.signal(signal.SIGTERM, on_term)


def _task(job: bytes, shared: bytes) -> bytes:
    """One job on a Ray worker. Job, shared object and value travel pickled: Ray's zero-copy
    arrays are read-only, and the studies' code may write to its arrays, as it does locally."""
    t0 = time.perf_counter()
    fn, args = pickle.loads(job)
    value = call(fn, pickle.loads(shared), args)
    return pickle.dumps((value, time.perf_counter() - t0))


class RayPool(Pool):
    """Jobs as Ray tasks (module docstring)."""

    remote = True

    @classmethod
    def check_address(cls, address: str) -> None:
        """``HOST:PORT`` where a Ray head answers within a few seconds (`probe_address`)."""
        probe_address(address)

    def run(self, jobs: list[Job], shared: Any = None) -> Generator[JobResult, None, None]:
        ray = import_ray()
        started_here = not ray.is_initialized()
        if started_here:
            init_ray(ray, self.address, self.workers * self.threads)
        refs: dict[Any, int] = {}
        try:
            remote = ray.remote(num_cpus=self.threads, max_retries=self.retries)(_task)
            shared_ref = ray.put(pickle.dumps(shared))
            refs = {
                remote.remote(pickle.dumps((j.fn, j.args)), shared_ref): i
                for i, j in enumerate(jobs)
            }
            while refs:
                (ref,), _ = ray.wait(list(refs), num_returns=1)
                index = refs.pop(ref)
                yield self._result(ray, ref, index, jobs[index])
        finally:
            for ref in refs:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            if started_here:
                ray.shutdown()

    def _result(self, ray: Any, ref: Any, index: int, job: Job) -> JobResult:
        try:
            value, seconds = pickle.loads(ray.get(ref))
            return JobResult(index, job.key, value, seconds=seconds)
        except ray.exceptions.RayTaskError as exc:  # the job raised: its own exception
            cause = getattr(exc, "cause", None) or exc
            cls, line = error_line(cause)
            return JobResult(index, job.key, None, line, cls)
        except Exception as exc:  # Ray could not complete it (worker or node lost, ...)
            _, line = error_line(exc)
            return JobResult(index, job.key, None, f"ray: {line}", "", 1 + self.retries)
