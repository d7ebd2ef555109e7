"""``--workers``, ``--backend`` and ``--address``: one definition for every study command.

``--address`` is ``HOST:PORT`` (`address_option`: its form is checked here, before any work; the
port is probed with a deadline before Ray joins it, `wirelab.parallel.address`).
``--workers N`` is any positive number; without it a study uses every core this process may run
on (its CPU affinity, `wirelab.parallel.jobs.default_workers`). Where a job is large (a flygym
process), `check_workers_memory` refuses a ``--workers`` whose jobs cannot fit in the memory
available now, and lowers the default to what fits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from wirelab.cli_options import available_memory, check_memory
from wirelab.errors import UsageError
from wirelab.parallel.address import parse_address
from wirelab.parallel.jobs import default_workers
from wirelab.parallel.pool import MAX_WORKERS, POOLS

F = TypeVar("F", bound=Callable[..., Any])


def address_option(
    ctx: click.Context | None, param: click.Parameter | None, value: str | None
) -> str | None:
    """``--address``'s callback: ``HOST:PORT`` or nothing; any other form is a one-line error
    (exit 2) before any work (`wirelab.parallel.address.parse_address`). Also the callback of
    ``wirelab sweep --address``."""
    if value is None:
        return None
    try:
        parse_address(value)
    except UsageError as exc:
        raise click.BadParameter(str(exc).removeprefix("--address "), ctx, param) from None
    return value


def executor_options(f: F) -> F:
    """Add ``--workers``, ``--backend``, ``--address`` (keyword arguments of the same names)."""
    opts = [
        click.option(
            "--workers",
            type=click.IntRange(min=1, max=MAX_WORKERS),
            default=None,
            help=f"Jobs run at once [default: the cores this process may use, {default_workers()} "
            "here].",
        ),
        click.option(
            "--backend",
            type=POOLS.choice(),
            default="local",
            show_default=True,
            help="Where the jobs run: worker processes here, or a Ray cluster.",
        ),
        click.option(
            "--address",
            default=None,
            metavar="HOST:PORT",
            callback=address_option,
            help="The Ray cluster to join (--backend ray); none: Ray starts one here.",
        ),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def check_workers_memory(workers: int | None, job_bytes: float, what: str) -> int | None:
    """``workers`` checked against memory (``job_bytes`` per ``what`` job): a given number whose
    jobs do not fit is a one-line `UsageError`; the default (None) becomes the cores' number, or
    fewer when fewer jobs fit (at least one)."""
    if workers is not None:
        check_memory(f"--workers {workers} ({what} jobs)", workers * job_bytes)
        return workers
    free = available_memory()
    fit = default_workers() if free is None else max(1, int(free // job_bytes))
    return min(default_workers(), fit)
