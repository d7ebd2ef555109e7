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
resumes where it stopped. A failed point is recorded (status ``failed`` with its error) and retried
on the next start.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from wirelab.errors import UsageError
from wirelab.results import ResultDir, read_json
from wirelab.sweep.backends import Task, run_local, run_ray, threads_per_worker
from wirelab.sweep.batch import Group, plan, point_metrics, split
from wirelab.sweep.grid import Grid, Point, display_argv
from wirelab.sweep.runner import Outcome, write_files
from wirelab.sweep.table import flatten_metrics, summary_plot, write_tables

BACKENDS = ("local", "ray")


@dataclass
class SweepResult:
    out: Path
    rows: list[dict[str, Any]]
    ran: int
    resumed: int
    failed: int
    seconds: float
    metric: str | None
    files: list[Path] = field(default_factory=list)


def point_dir_id(grid: Grid, point: Point) -> str:
    """12 hex digits of SHA-256 over the command, the fixed options and the point's parameters:
    a point keeps its directory (and its finished result) when other points are added."""
    key: dict[str, Any] = {"command": grid.command, "fixed": grid.fixed, "params": point.params}
    if grid.derive:  # (absent from the key of grids without [derive], keeping their ids)
        key["derive"] = grid.derive
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _row(
    grid: Grid, point: Point, pid: str, outcome: dict[str, Any] | None, pdir: Path
) -> dict[str, Any]:
    row: dict[str, Any] = {"index": point.index, "point": pid, **point.params}
    metrics_path = pdir / "metrics.json"
    if metrics_path.is_file():
        try:
            metrics = read_json(metrics_path)
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
    grid: Grid,
    out: Path,
    *,
    backend: str = "local",
    workers: int | None = None,
    threads: int | None = None,
    address: str | None = None,
    timeout: float | None = None,
    batch: bool = True,
    console: Console | None = None,
) -> SweepResult:
    """Run every unfinished point of ``grid`` into ``out`` and write the tables and plot.

    With a ``[batch]`` table in the grid (and ``batch=True``), unfinished points that differ
    only in the batch key run as one command each group (`wirelab.sweep.batch`).
    """
    if backend not in BACKENDS:
        raise UsageError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address and backend != "ray":
        raise UsageError("--address only applies to --backend ray")
    console = console or Console(stderr=True)
    workers = workers or 2
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    threads = threads or threads_per_worker(workers)
    t0 = time.perf_counter()
    points = grid.points()
    rd = ResultDir.create(
        out,
        command=f"wirelab sweep {grid.source}".strip(),
        config={
            "grid": grid.to_dict(),
            "backend": backend,
            "address": address,
            "workers": workers,
            "threads": threads,
            "batch": batch,
        },
    )
    (out / "metrics.json").unlink(missing_ok=True)  # a sweep being run is not complete
    pdirs = {p.index: out / "points" / point_dir_id(grid, p) for p in points}
    todo = [p for p in points if not (pdirs[p.index] / "metrics.json").is_file()]
    resumed = len(points) - len(todo)
    log_path = out / "outcomes.jsonl"
    outcomes = _previous_outcomes(log_path)
    if resumed:
        console.print(f"resuming: {resumed} of {len(points)} points already complete")
    groups, singles = plan(grid, grid.batch if batch else None, todo)
    by_group = {g.id: g for g in groups}
    for g in groups:
        values = ", ".join(str(p.params[g.key]) for p in g.points)
        console.print(f"batched: {len(g.points)} points -> 1 run {g.id} over {g.key} = {values}")
    tasks = [Task(g.id, g.argv, out / "batches" / g.id) for g in groups]
    tasks += [Task(point_dir_id(grid, p), grid.argv_before_out(p), pdirs[p.index]) for p in singles]
    progress = Progress(
        TextColumn("[bold]sweep[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    failed = 0
    with progress:
        bar = progress.add_task(f"{backend} x{workers}", total=len(points), completed=resumed)
        if backend == "local":
            stream = run_local(
                tasks, workers=workers, threads=threads, retries=grid.retries, timeout=timeout
            )
        else:
            stream = run_ray(
                tasks,
                workers=workers,
                threads=threads,
                retries=grid.retries,
                timeout=timeout,
                address=address,
            )
        for outcome in stream:
            group = by_group.get(outcome.id)
            if group is None:
                _record(outcome, out / "points" / outcome.id, outcomes, log_path)
                point_outcomes = [outcome]
            else:
                _record(outcome, out / "batches" / group.id, outcomes, log_path)
                point_outcomes = _split_group(grid, group, outcome, out, pdirs)
                for po in point_outcomes:
                    _record(po, out / "points" / po.id, outcomes, log_path)
            for po in point_outcomes:
                failed += po.status != "ok"
                if po.status != "ok":
                    progress.console.print(f"[red]point {po.id} failed:[/] {po.error}")
                progress.advance(bar)
    rows = [
        _row(grid, p, point_dir_id(grid, p), outcomes.get(point_dir_id(grid, p)), pdirs[p.index])
        for p in points
    ]
    params = list(grid.vary)
    files = write_tables(out, rows, params)
    plot, metric = summary_plot(out, rows, params, grid.metric)
    if plot:
        files.append(plot)
    seconds = time.perf_counter() - t0
    rd.write_metrics(
        {
            "points": len(points),
            "ok": sum(r["status"] == "ok" for r in rows),
            "failed": sum(r["status"] == "failed" for r in rows),
            "ran": len(todo),
            "commands": len(tasks),
            "resumed": resumed,
            "backend": backend,
            "workers": workers,
            "threads_per_worker": threads,
            "wall_seconds": round(seconds, 3),
            "metric": metric,
            "batches": [
                {
                    "batch": g.id,
                    "key": g.key,
                    "points": len(g.points),
                    "command": display_argv(g.argv),
                }
                for g in groups
            ],
            "failed_points": [
                {"point": r["point"], "error": r["error"]} for r in rows if r["status"] == "failed"
            ],
        }
    )
    return SweepResult(out, rows, len(todo), resumed, failed, seconds, metric, files)


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
