"""``wirelab sweep GRID.toml --backend local|ray [--address ADDR] [--workers N] --out DIR``.

``--max-points N`` raises the grid size limit (`wirelab.sweep.grid.DEFAULT_MAX_POINTS`), which is
checked before any point is built. ``--timeout`` must be a finite number of seconds.

Points die with the driver: an orderly stop (the sweep's end, an error, Ctrl-C, SIGTERM) kills
their process groups, and a driver that dies without cleaning up (SIGKILL, a closed terminal)
takes them with it (`wirelab.sweep.tether`). ``--points-outlive-driver`` lets points started by a
driver that dies that way run on to their end (a later start of the sweep keeps what they
finished, and kills any still running before it reruns them).

The --backend choices are the executors in `wirelab.sweep.executors.EXECUTORS`, read when the
option is parsed (so an executor registered later is accepted too).
"""

from __future__ import annotations

import math
from pathlib import Path

import click

from wirelab.cli_options import OUT_DIR, THREADS
from wirelab.sweep.executors import EXECUTORS
from wirelab.sweep.grid import DEFAULT_MAX_POINTS


@click.command("sweep")
@click.argument("grid_file", metavar="GRID.toml", type=click.Path(path_type=Path))
@click.option(
    "--backend",
    type=EXECUTORS.choice(),
    default="local",
    show_default=True,
    help="Where the points run (a registered sweep executor).",
)
@click.option("--address", default=None, help="Ray cluster address (ray backend); none: start one.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Points run at once [default: the cores this process may use].",
)
@click.option(
    "--threads",
    type=THREADS,
    default=None,
    help="Threads per point (OMP/MKL/torch); default: CPUs // workers.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, min_open=True),
    default=None,
    help="Seconds before one attempt of a point is killed.",
)
@click.option("--out", required=True, type=OUT_DIR)
@click.option("--dry-run", is_flag=True, help="List the points and their commands; run nothing.")
@click.option(
    "--no-batch", is_flag=True, help="Run every point on its own even if the grid has [batch]."
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
    from wirelab.sweep.batch import plan
    from wirelab.sweep.grid import display_argv, load_grid
    from wirelab.sweep.sweep import point_dir_id, run_sweep

    if timeout is not None and not math.isfinite(timeout):
        raise click.BadParameter(
            f"{timeout} is not a finite number of seconds",
            ctx=click.get_current_context(),
            param_hint="'--timeout'",
        )
    grid = load_grid(grid_file, max_points=max_points)
    if dry_run:
        groups, singles = plan(grid, None if no_batch else grid.batch, grid.points())
        for g in groups:
            argv = [*g.argv, "--out", str(out / "batches" / g.id)]
            idx = ",".join(str(p.index) for p in g.points)
            click.echo(f"{idx}\t{g.id}\t{display_argv(argv)}")
        for p in singles:
            pid = point_dir_id(grid, p)
            argv = [*grid.argv_before_out(p), "--out", str(out / "points" / pid)]
            click.echo(f"{p.index}\t{pid}\t{display_argv(argv)}")
        return
    result = run_sweep(
        grid,
        out,
        backend=backend,
        workers=workers,
        threads=threads,
        address=address,
        timeout=timeout,
        batch=not no_batch,
        outlive=points_outlive_driver,
    )
    ok = sum(r["status"] == "ok" for r in result.rows)
    click.echo(
        f"{ok}/{len(result.rows)} points ok ({result.ran} run now, {result.resumed} already "
        f"complete, {result.failed} failed) in {result.seconds:.1f} s -> {out}/results.csv"
    )
    if result.failed:
        raise click.exceptions.Exit(1)
