"""The sweep driver: expand a grid, skip finished points, run the rest, write the tidy table.

Layout of ``--out DIR`` (itself a result directory)::

    DIR/config.json          the grid, backend, workers (written at every start)
    DIR/points/<id>/         one result directory per point (``<id>`` hashes command, fixed
                             options and the point's parameters), plus its ``sweep.log``
    DIR/batches/<id>/        the result directory of each batched command (`wirelab.sweep.batch`)
    DIR/results.csv          one row per point: index, point, parameters, status, attempts,
    DIR/results.jsonl        seconds, error, then its flattened metrics
    DIR/summary.png          the chosen metric against the first varied parameter
    DIR/metrics.json         counts and wall time; written last

A point whose ``metrics.json`` exists is complete and is not run again, so a sweep that was killed
resumes where it stopped (its own directory is opened with ``resume=True``). A failed point is
recorded (status ``failed`` with its error) and retried on the next start. Points run in their own
process groups, which the driver kills when it stops (also on SIGINT and SIGTERM); a driver killed
outright takes its points with it (`wirelab.parallel.tether`) unless ``outlive`` is asked for; a
point left running by such a driver is found by its marker and killed before it is run again, and
the markers of points that finished meanwhile are removed (`wirelab.sweep.procs`).

The grid's ``metric`` must be a numeric column of the results: it is checked on the first
complete point (before anything runs when resuming), and a name that is not there stops the sweep
with a one-line error listing the numeric columns (nothing is silently plotted instead).

`run_sweep` goes through named steps: `SweepOptions.validate` (before ``DIR`` is touched),
`plan_sweep`, `reap_stale_points`, `run_tasks` (the outcomes of `wirelab.sweep.points.run_points`:
the points as jobs of `wirelab.parallel`, on any back end of its one registry `POOLS`),
`result_rows`, `write_outputs`, `sweep_metrics`.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from wirelab.progress import progress_bar
from wirelab.results import experiment
from wirelab.sweep.batch import Group, point_metrics, split
from wirelab.sweep.grid import Grid, Point, display_argv, load_grid
from wirelab.sweep.options import SweepOptions
from wirelab.sweep.plan import SweepPlan, plan_sweep, point_dir_id
from wirelab.sweep.points import run_points
from wirelab.sweep.procs import ProcessGroups, reap_stale
from wirelab.sweep.results_table import (
    check_metric,
    flatten_metrics,
    read_metrics,
    summary_plot,
    write_tables,
)
from wirelab.sweep.runner import Outcome, write_files


@dataclass
class SweepResult:
    """What `run_sweep` gives back: the directory, one row per point in grid order (its
    parameters, ``status`` ok / failed / not run, ``attempts``, ``seconds``, ``error``, then its
    flattened metrics: the rows of ``results.csv``), the points run now, already complete and
    failed, the wall time, the metric plotted and the files written."""

    out: Path
    rows: list[dict[str, Any]]
    ran: int
    resumed: int
    failed: int
    seconds: float
    metric: str | None
    files: list[Path] = field(default_factory=list)


def _row(
    grid: Grid, point: Point, pid: str, outcome: dict[str, Any] | None, pdir: Path
) -> dict[str, Any]:
    row: dict[str, Any] = {"index": point.index, "point": pid, **point.params}
    metrics_path = pdir / "metrics.json"
    if metrics_path.is_file():
        try:
            metrics = read_metrics(metrics_path)
        except (OSError, ValueError) as exc:
            row.update(status="failed", error=f"metrics.json unreadable: {exc}")
            return row
        row.update(status="ok", attempts=None, seconds=None, error="")
        if outcome:
            row.update(attempts=outcome["attempts"], seconds=round(outcome["seconds"], 3))
        if grid.batch is not None:  # the same columns whether the point ran batched or alone
            metrics = point_metrics(metrics, grid.batch, point.params[grid.batch.key]) or metrics
        for k, v in flatten_metrics(metrics).items():
            row.setdefault(k, v)
        return row
    if outcome:
        row.update(
            status=outcome["status"] if outcome["status"] != "ok" else "failed",
            attempts=outcome["attempts"],
            seconds=round(outcome["seconds"], 3),
            error=outcome["error"] or "no metrics.json",
        )
    else:
        row.update(status="not run", attempts=0, seconds=None, error="")
    return row


def run_sweep(
    grid: Grid | str | Path,
    out: str | Path,
    options: SweepOptions | None = None,
    *,
    console: Console | None = None,
    **settings: Any,
) -> SweepResult:
    """Run every unfinished point of ``grid`` into ``out``; write the tables and the plot.

    What ``wirelab sweep GRID.toml --out DIR`` calls. Points already complete in ``out`` are kept
    (a killed sweep resumes); with a ``[batch]`` table in the grid (and ``options.batch``),
    unfinished points that differ only in the batch key run as one command each group
    (`wirelab.sweep.batch`).

    Args:
        grid: a `Grid`, or the path of a grid file (`load_grid`).
        out: the sweep's directory (itself a result directory, opened to resume).
        options: back end, workers, threads, address, timeout, batching (`SweepOptions`);
            ``settings`` are its fields as keywords, on top: ``run_sweep(g, out, backend="ray")``.
        console: where the sweep's messages go (default: stderr).

    Returns:
        A `SweepResult`: one row per point (parameters, status, flattened metrics) in grid order.

    Raises:
        UsageError: options that cannot work, or a grid metric that is not a numeric column
            (one line, before any point runs when it can tell).
    """
    grid = grid if isinstance(grid, Grid) else load_grid(grid)
    out = Path(out)
    opts = replace(options or SweepOptions(), **settings)
    opts.validate()  # before DIR is touched
    exec_options = opts.exec_options()
    console = console or Console(stderr=True)
    t0 = time.perf_counter()
    groups = ProcessGroups(tether=not opts.outlive)
    config = {
        "grid": grid.to_dict(),
        "backend": opts.backend,
        "address": opts.address,
        "workers": opts.n_workers,
        "threads": opts.n_threads,
        "batch": opts.batch,
    }
    command = f"wirelab sweep {grid.source}".strip()
    sp = plan_sweep(grid, out, opts.batch)
    reap_stale_points(sp, console)  # before DIR is opened: another driver's sweep is refused
    with experiment(out, command=command, config=config, resume=True) as rd:
        todo = {p.index for p in sp.todo}
        done = [p for p in sp.points if p.index not in todo][:1]
        rows = result_rows(grid, SweepPlan(done, sp.point_dirs, [], [], []), {})
        check_metric(grid.metric, rows, list(grid.vary), grid.source)
        _announce(sp, console)
        outcomes = _previous_outcomes(out / "outcomes.jsonl")
        try:
            finished = run_points(
                sp.tasks, exec_options, retries=grid.retries, timeout=opts.timeout, groups=groups
            )
            label = f"{opts.backend} x{opts.n_workers}"
            failed = run_tasks(grid, sp, finished, out, outcomes, console, label)
        finally:
            groups.kill_all()  # whatever stopped the driver, its points stop too
        rows = result_rows(grid, sp, outcomes)
        files, metric = write_outputs(out, rows, grid)
        seconds = time.perf_counter() - t0
        rd.finish(sweep_metrics(sp, rows, opts, seconds, metric))
    return SweepResult(out, rows, len(sp.todo), sp.resumed, failed, seconds, metric, files)


def reap_stale_points(sp: SweepPlan, console: Console) -> None:
    """Kill what a killed driver left running in the directories of the sweep (those about to be
    run, and finished points whose marker stayed); refuse when another driver still runs them
    (`wirelab.sweep.procs.reap_stale`)."""
    dirs = dict.fromkeys([*(task.out for task in sp.tasks), *sp.point_dirs.values()])
    for d in dirs:
        message = reap_stale(d)
        if message:
            console.print(message)


def _announce(sp: SweepPlan, console: Console) -> None:
    if sp.resumed:
        console.print(f"resuming: {sp.resumed} of {len(sp.points)} points already complete")
    for g in sp.groups:
        values = ", ".join(str(p.params[g.key]) for p in g.points)
        console.print(f"batched: {len(g.points)} points -> 1 run {g.id} over {g.key} = {values}")


def run_tasks(
    grid: Grid,
    sp: SweepPlan,
    results: Iterator[Outcome],
    out: Path,
    outcomes: dict[str, dict[str, Any]],
    console: Console,
    label: str,
) -> int:
    """Record each outcome of the plan's tasks as it comes from ``results`` (a killed sweep keeps
    what finished); batched runs are split into their points. Returns the failed points."""
    log_path = out / "outcomes.jsonl"
    by_group = {g.id: g for g in sp.groups}
    by_id = {point_dir_id(grid, p): p for p in sp.todo}
    failed = 0
    metric_ok = grid.metric is None
    with (
        progress_bar(f"sweep {label}", len(sp.points)) as bar,
        _closed(results) as finished,  # closed early: the back end stops its points
    ):
        bar.update(sp.resumed)
        for outcome in finished:
            for po in _point_outcomes(grid, sp, by_group, outcome, out, outcomes, log_path):
                failed += po.status != "ok"
                if po.status != "ok":
                    console.print(f"[red]point {po.id} failed:[/] {po.error}")
                elif not metric_ok and po.id in by_id:
                    p = by_id[po.id]
                    row = _row(grid, p, po.id, None, sp.point_dirs[p.index])
                    metric_ok = check_metric(grid.metric, [row], list(grid.vary), grid.source)
                bar.advance()
    return failed


@contextlib.contextmanager
def _closed(outcomes: Iterator[Outcome]) -> Iterator[Iterator[Outcome]]:
    """``outcomes``, closed on leaving (a generator's cleanup runs now, not when collected)."""
    try:
        yield outcomes
    finally:
        close = getattr(outcomes, "close", None)
        if callable(close):
            close()


def _point_outcomes(
    grid: Grid,
    sp: SweepPlan,
    by_group: dict[str, Group],
    outcome: Outcome,
    out: Path,
    outcomes: dict[str, dict[str, Any]],
    log_path: Path,
) -> Iterator[Outcome]:
    """Record one task's outcome; yield the outcome of each point it ran."""
    group = by_group.get(outcome.id)
    if group is None:
        _record(outcome, out / "points" / outcome.id, outcomes, log_path)
        yield outcome
        return
    _record(outcome, out / "batches" / group.id, outcomes, log_path)
    for po in _split_group(grid, group, outcome, out, sp.point_dirs):
        _record(po, out / "points" / po.id, outcomes, log_path)
        yield po


def result_rows(
    grid: Grid, sp: SweepPlan, outcomes: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per point in expansion order: parameters, status, flattened metrics."""
    rows = []
    for p in sp.points:
        pid = point_dir_id(grid, p)
        rows.append(_row(grid, p, pid, outcomes.get(pid), sp.point_dirs[p.index]))
    return rows


def write_outputs(
    out: Path, rows: list[dict[str, Any]], grid: Grid
) -> tuple[list[Path], str | None]:
    """``results.csv``, ``results.jsonl`` and ``summary.png``; returns their paths and the metric
    plotted."""
    params = list(grid.vary)
    files = write_tables(out, rows, params)
    plot, metric = summary_plot(out, rows, params, grid.metric)
    if plot:
        files.append(plot)
    return files, metric


def sweep_metrics(
    sp: SweepPlan,
    rows: list[dict[str, Any]],
    opts: SweepOptions,
    seconds: float,
    metric: str | None,
) -> dict[str, Any]:
    """The sweep's own ``metrics.json``: counts, the backend, wall time, batches, failures."""
    return {
        "points": len(sp.points),
        "ok": sum(r["status"] == "ok" for r in rows),
        "failed": sum(r["status"] == "failed" for r in rows),
        "ran": len(sp.todo),
        "commands": len(sp.tasks),
        "resumed": sp.resumed,
        "backend": opts.backend,
        "workers": opts.n_workers,
        "threads_per_worker": opts.n_threads,
        "wall_seconds": round(seconds, 3),
        "metric": metric,
        "batches": [
            {
                "batch": g.id,
                "key": g.key,
                "points": len(g.points),
                "command": display_argv(g.argv),
            }
            for g in sp.groups
        ],
        "failed_points": [
            {"point": r["point"], "error": r["error"]} for r in rows if r["status"] == "failed"
        ],
    }


def _previous_outcomes(log_path: Path) -> dict[str, dict[str, Any]]:
    """The last recorded outcome of each point from earlier starts of this sweep."""
    found: dict[str, dict[str, Any]] = {}
    if log_path.is_file():
        for line in log_path.read_text().splitlines():
            try:
                rec = json.loads(line)
                found[str(rec["id"])] = rec
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a kill
    return found


def _split_group(
    grid: Grid, group: Group, outcome: Outcome, out: Path, pdirs: dict[int, Path]
) -> list[Outcome]:
    """Per-point outcomes of a batched run (its points' directories are written here)."""
    ids = {p.index: point_dir_id(grid, p) for p in group.points}
    share = outcome.seconds / len(group.points)
    if outcome.status != "ok" or grid.batch is None:
        return [
            Outcome(ids[p.index], "failed", outcome.attempts, share, f"batch: {outcome.error}")
            for p in group.points
        ]
    errors = split(grid, grid.batch, group, out / "batches" / group.id, pdirs)
    return [
        Outcome(ids[i], "failed" if err else "ok", outcome.attempts, share, err)
        for i, err in errors.items()
    ]


def _record(
    outcome: Outcome, target: Path, outcomes: dict[str, dict[str, Any]], log_path: Path
) -> None:
    if outcome.files is not None:  # shipped back from a Ray worker
        write_files(target, outcome.files)
    outcomes[outcome.id] = outcome.to_dict()
    with open(log_path, "a") as fh:
        fh.write(json.dumps(outcome.to_dict()) + "\n")
