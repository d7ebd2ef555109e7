"""Batched points: run points that differ only in one key as one command, then split the result.

A grid may declare

.. code-block:: toml

    [batch]
    key = "alpha"                           # points that differ only in alpha form one group
    rows = "summary.*.per_alpha"            # where the batched run's metrics hold one row per value

For the reservoir engine (``wirelab reservoir run --alpha a,b,c``) this turns ten runs of one
gain each into one run over ten gains: the connectome and its nulls are built once and all gains
advance together (the engine's batching). Each point still gets its own result directory (its
``config.json`` names the batched command line and the batch; its ``metrics.json`` holds the rows
for its value, one per ``*`` match, e.g. one per task), so resume and the tidy table work as for
single points. The batched run itself is kept under ``DIR/batches/<id>/``.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wirelab.results import environment, write_json
from wirelab.sweep.grid import BatchSpec, Grid, Point, command_argv, options
from wirelab.sweep.results_table import read_metrics


@dataclass
class Group:
    """Points that differ only in ``key``; one command runs them all."""

    id: str
    key: str
    points: list[Point]
    argv: list[str]  # without --out


def plan(grid: Grid, spec: BatchSpec | None, todo: list[Point]) -> tuple[list[Group], list[Point]]:
    """Group ``todo`` points by everything but ``spec.key``; groups of one stay single points."""
    if spec is None:
        return [], list(todo)
    buckets: dict[str, list[Point]] = {}
    for p in todo:
        rest = {k: v for k, v in p.params.items() if k != spec.key}
        buckets.setdefault(json.dumps(rest, sort_keys=True, default=str), []).append(p)
    groups, singles = [], []
    for pts in buckets.values():
        if len(pts) == 1:
            singles += pts
            continue
        opts = grid.point_options(pts[0])
        opts[spec.key] = [p.params[spec.key] for p in pts]
        argv = command_argv(grid.command) + options(opts)
        gid = "b" + hashlib.sha256(json.dumps(argv[1:]).encode()).hexdigest()[:11]
        groups.append(Group(gid, spec.key, pts, argv))
    return groups, singles


def _rows_at(metrics: Any, path: str) -> list[tuple[str, list[Any]]]:
    """The lists at ``path`` (dot-separated, ``*`` = every key), each with the ``*`` keys."""
    found: list[tuple[str, Any]] = [("", metrics)]
    for part in path.split("."):
        nxt: list[tuple[str, Any]] = []
        for label, node in found:
            if not isinstance(node, dict):
                continue
            if part == "*":
                nxt += [(f"{label}.{k}".strip("."), v) for k, v in node.items()]
            elif part in node:
                nxt.append((label, node[part]))
        found = nxt
    return [(label, v) for label, v in found if isinstance(v, list)]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def point_metrics(metrics: Any, spec: BatchSpec, value: Any) -> dict[str, Any] | None:
    """The rows for ``value`` at ``spec.rows`` (less the key), keyed by their ``*`` labels;
    a path without ``*`` gives the row itself. None if no row has ``value``."""
    found: dict[str, Any] = {}
    for label, rows in _rows_at(metrics, spec.rows):
        for row in rows:
            if isinstance(row, dict) and _same(row.get(spec.key), value):
                found[label] = {k: v for k, v in row.items() if k != spec.key}
                break
    if not found:
        return None
    return dict(found[""]) if list(found) == [""] else found


def split(
    grid: Grid, spec: BatchSpec, group: Group, batch_dir: Path, point_dirs: dict[int, Path]
) -> dict[int, str]:
    """Write each point's result directory from the batched run; returns {index: error} for
    each point (an empty error: the point is complete)."""
    try:
        metrics = read_metrics(batch_dir / "metrics.json")
    except (OSError, ValueError) as exc:  # every point of the batch fails, the sweep goes on
        why = f"batch: metrics.json unreadable: {exc}"
        return {p.index: why for p in group.points}
    errors: dict[int, str] = {}
    for p in group.points:
        value = p.params[spec.key]
        found = point_metrics(metrics, spec, value)
        if found is None:
            errors[p.index] = f"the batched run has no row with {spec.key}={value} at {spec.rows}"
            continue
        pdir = point_dirs[p.index]
        write_json(
            pdir / "config.json",
            {
                "command": grid.command,
                "config": grid.point_options(p),
                "argv": group.argv,
                "batch": {"id": group.id, "key": spec.key, "dir": str(batch_dir)},
                "environment": environment(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            },
        )
        write_json(pdir / "metrics.json", found)  # last: marks the point complete
        errors[p.index] = ""
    return errors
