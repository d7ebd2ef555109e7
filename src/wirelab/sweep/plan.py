"""What a start of a sweep runs: point ids and directories, the unfinished points, the commands.

A point's directory is ``DIR/points/<id>``, ``<id>`` 12 hex digits of SHA-256 over the command,
the fixed options, the ``[derive]`` rules and the point's parameters (`point_dir_id`), so that
adding values to a grid keeps the points that did not change, and their results. A point whose
``metrics.json`` exists is complete; the others are grouped into batched commands where the grid
has ``[batch]`` (`wirelab.sweep.batch`) and run as `Task` s.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wirelab.sweep.batch import Group, plan
from wirelab.sweep.grid import Grid, Point
from wirelab.sweep.points import Task


@dataclass
class SweepPlan:
    """What this start of a sweep runs: every point's directory, the unfinished points, and the
    commands (batched groups first, then single points) that run them."""

    points: list[Point]
    point_dirs: dict[int, Path]
    todo: list[Point]
    groups: list[Group]
    tasks: list[Task]

    @property
    def resumed(self) -> int:
        """Points already complete when this start began."""
        return len(self.points) - len(self.todo)


def point_dir_id(grid: Grid, point: Point) -> str:
    """12 hex digits of SHA-256 over the command, the fixed options and the point's parameters:
    a point keeps its directory (and its finished result) when other points are added."""
    key: dict[str, Any] = {"command": grid.command, "fixed": grid.fixed, "params": point.params}
    if grid.derive:  # (absent from the key of grids without [derive], keeping their ids)
        key["derive"] = grid.derive
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def plan_sweep(grid: Grid, out: Path, batch: bool) -> SweepPlan:
    """Which points are still to run and the commands that run them."""
    points = grid.points()
    pdirs = {p.index: out / "points" / point_dir_id(grid, p) for p in points}
    todo = [p for p in points if not (pdirs[p.index] / "metrics.json").is_file()]
    groups, singles = plan(grid, grid.batch if batch else None, todo)
    tasks = [Task(g.id, g.argv, out / "batches" / g.id) for g in groups]
    tasks += [Task(point_dir_id(grid, p), grid.argv_before_out(p), pdirs[p.index]) for p in singles]
    return SweepPlan(points, pdirs, todo, groups, tasks)


def planned_commands(
    grid: Grid, out: str | Path, batch: bool = True
) -> list[tuple[str, str, list[str]]]:
    """Every command a sweep of the whole grid into ``out`` would run, finished or not:
    ``(point indices "0,1,2", directory id, argv with --out)``, batched groups first
    (``wirelab sweep --dry-run`` prints them; `display_argv` shows an argv as typed)."""
    out = Path(out)
    groups, singles = plan(grid, grid.batch if batch else None, grid.points())
    found = []
    for g in groups:
        idx = ",".join(str(p.index) for p in g.points)
        found.append((idx, g.id, [*g.argv, "--out", str(out / "batches" / g.id)]))
    for p in singles:
        pid = point_dir_id(grid, p)
        found.append(
            (str(p.index), pid, [*grid.argv_before_out(p), "--out", str(out / "points" / pid)])
        )
    return found
