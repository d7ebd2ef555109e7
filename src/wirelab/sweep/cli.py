"""``wirelab sweep GRID.toml --backend local|ray [--address ADDR] [--workers N] --out DIR``.

``--max-points N`` raises the grid size limit (`wirelab.sweep.grid.DEFAULT_MAX_POINTS`), which is
checked before any point is built. ``--timeout`` must be a finite number of seconds.

Points die with the driver: an orderly stop (the sweep's end, an error, Ctrl-C, SIGTERM) kills
their process groups, and a driver that dies without cleaning up (SIGKILL, a closed terminal)
takes them with it (`wirelab.parallel.tether`). ``--points-outlive-driver`` lets points started
by a driver that dies that way run on to their end (a later start of the sweep keeps what they
finished, and kills any still running before it reruns them).

A thin layer over the Python API: the options are the fields of `wirelab.sweep.SweepOptions`
(their defaults are its defaults) and the command calls `wirelab.sweep.run_sweep`, as a Python
user does. The --backend choices are the back ends in `wirelab.parallel.POOLS`, the registry of
every study, read when the option is parsed (so a back end registered later is accepted too).
"""

from __future__ import annotations

import math
from pathlib import Path

import click

from wirelab.cli_options import OUT_DIR, THREADS
from wirelab.parallel import POOLS
from wirelab.parallel.options import address_option
from wirelab.parallel.pool import MAX_WORKERS
from wirelab.sweep.grid import DEFAULT_MAX_POINTS
from wirelab.sweep.options import SweepOptions

DEFAULTS = SweepOptions()


@click.command("sweep")
@click.argument("grid_file", metavar="GRID.toml", type=click.Path(path_type=Path))
@click.option(
    "--backend",
    type=POOLS.choice(),
    default=DEFAULTS.backend,
    show_default=True,
    help="Where the points run (a registered back end: threads here, or Ray tasks).",
)
@click.option(
    "--address",
    default=DEFAULTS.address,
    metavar="HOST:PORT",
    callback=address_option,
    help="Ray cluster address (ray backend); none: start one.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=MAX_WORKERS),
    default=DEFAULTS.workers,
    help="Points run at once [default: the cores this process may use].",
)
@click.option(
    "--threads",
    type=THREADS,
    default=DEFAULTS.threads,
    help="Threads per point (OMP/MKL/torch); default: CPUs // workers.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, min_open=True),
    default=DEFAULTS.timeout,
    help="Seconds before one attempt of a point is killed.",
)
@click.option("--out", required=True, type=OUT_DIR)
@click.option("--dry-run", is_flag=True, help="List the points and their commands; run nothing.")
@click.option(
    "--no-batch",
    is_flag=True,
    default=not DEFAULTS.batch,
    help="Run every point on its own even if the grid has [batch].",
)
@click.option(
    "--max-points",
    type=click.IntRange(1),
    default=DEFAULT_MAX_POINTS,
    show_default=True,
    help="Refuse grids with more points than this (checked before any point is built).",
)
@click.option(
    "--points-outlive-driver",
    is_flag=True,
    default=DEFAULTS.outlive,
    help="Points keep running if the driver dies without cleaning up (SIGKILL); by default they "
    "die with it.",
)
def command(
    grid_file: Path,
    backend: str,
    address: str | None,
    workers: int | None,
    threads: int | None,
    timeout: float | None,
    out: Path,
    dry_run: bool,
    no_batch: bool,
    max_points: int,
    points_outlive_driver: bool,
) -> None:
    """Run every point of a grid of experiments; skip points already complete in --out.

    Writes one result directory per point under DIR/points/, then DIR/results.csv and
    DIR/results.jsonl (one row per point: its parameters, status and metrics) and DIR/summary.png.
    """
    from wirelab.sweep.grid import display_argv, load_grid
    from wirelab.sweep.plan import planned_commands
    from wirelab.sweep.sweep import run_sweep

    if timeout is not None and not math.isfinite(timeout):
        raise click.BadParameter(
            f"{timeout} is not a finite number of seconds",
            ctx=click.get_current_context(),
            param_hint="'--timeout'",
        )
    grid = load_grid(grid_file, max_points=max_points)
    if dry_run:
        for idx, pid, argv in planned_commands(grid, out, batch=not no_batch):
            click.echo(f"{idx}\t{pid}\t{display_argv(argv)}")
        return
    options = SweepOptions(
        backend=backend,
        workers=workers,
        threads=threads,
        address=address,
        timeout=timeout,
        batch=not no_batch,
        outlive=points_outlive_driver,
    )
    result = run_sweep(grid, out, options)
    ok = sum(r["status"] == "ok" for r in result.rows)
    click.echo(
        f"{ok}/{len(result.rows)} points ok ({result.ran} run now, {result.resumed} already "
        f"complete, {result.failed} failed) in {result.seconds:.1f} s -> {out}/results.csv"
    )
    if result.failed:
        raise click.exceptions.Exit(1)
