"""What an executor runs and what it hands back: `Job`, `JobResult`, the retry policy, workers.

A job is a module-level function of an importable module (not ``__main__``) and its arguments
(pickled by reference, so that it can run in another process or on another machine); a study that
sends every job the same large object (a resolved experiment, a connectome) gives it once as
``shared`` and its function is then called ``fn(shared, *args)``, else ``fn(*args)``.

Retry policy (one for every back end): a job whose *worker was lost* (the process died: killed for
memory, a crash; on Ray a node lost) is run again, at most ``retries`` more times; a job that
*raised* is not (the same code on the same input raises again) and is reported at once. A failed
job is a `JobResult` with ``error`` set (``"ClassName: first line"``); `raise_failure` turns it
into the one-line error a command ends with (a `WirelabError` raised in the job keeps its class
and message; anything else becomes `JobFailed` naming the job).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wirelab import errors
from wirelab.errors import WirelabError

DEFAULT_RETRIES = 1  # extra attempts for a job whose worker was lost


class JobFailed(WirelabError):
    """A job failed (raised, or lost its worker more than the retries allow)."""


@dataclass(frozen=True)
class Job:
    """One independent piece of a study: ``key`` names it in progress lines and errors; ``fn``
    is a module-level function of an importable module (it travels by reference to a worker
    process or a Ray node) called ``fn(*args)``, or ``fn(shared, *args)`` when the run has a
    shared object.

    Example:
        `Job("seed 3", train_one_seed, (config, 3))`
    """

    key: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass
class JobResult:
    """What happened to job ``index`` (its place in the list given to the executor): its
    ``value``, or ``error`` (``"ClassName: first line"``) and ``error_class``; the ``attempts``
    it took (more than 1 when a lost worker was replaced) and its ``seconds``."""

    index: int
    key: str
    value: Any = None
    error: str = ""  # "" when the job succeeded
    error_class: str = ""  # the exception's class name when it raised
    attempts: int = 1
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the job succeeded (no ``error``)."""
        return not self.error


def call(fn: Callable[..., Any], shared: Any, args: tuple[Any, ...]) -> Any:
    """``fn(shared, *args)`` when there is a shared object, else ``fn(*args)``."""
    return fn(*args) if shared is None else fn(shared, *args)


def error_line(exc: BaseException) -> tuple[str, str]:
    """``(class name, "ClassName: first line")`` of an exception, at most 500 characters."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return type(exc).__name__, f"{type(exc).__name__}: {first}"[:500]


def raise_failure(result: JobResult) -> None:
    """Raise the one-line error of a failed job (module docstring)."""
    if result.ok:
        return
    cls = getattr(errors, result.error_class, None)
    if isinstance(cls, type) and issubclass(cls, WirelabError):
        raise cls(result.error.split(": ", 1)[-1])
    raise JobFailed(f"job {result.key} failed after {result.attempts} attempt(s): {result.error}")


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def blas_env(threads: int) -> dict[str, str]:
    """Environment variables capping the thread pools of a job's libraries at ``threads``."""
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
    return {name: str(threads) for name in names} | {"WIRELAB_THREADS": str(threads)}
