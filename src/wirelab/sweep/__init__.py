"""Sweeps: one grid of experiments (a TOML file or a dict), run here or on a Ray cluster, one tidy
table.

Every wirelab experiment command is a function from its options to a result directory, so a grid
is a list of command lines, each writing its own directory. `run_sweep` (what ``wirelab sweep``
calls) expands the grid (`load_grid`, `parse_grid`), skips the points already complete in its
``out`` directory (a killed sweep resumes), runs the rest as jobs of `wirelab.parallel` on any
back end of its one registry (`wirelab.parallel.POOLS`: ``local`` threads driving subprocesses,
or ``ray`` tasks whose files travel back), and writes ``results.csv`` / ``results.jsonl`` (one
row per point) and ``summary.png``. `SweepOptions` holds the settings, with the CLI's defaults.
docs/sweep.md is the guide.

Quickstart (the commands a grid expands to; ``run_sweep`` runs them):

```python
from wirelab.sweep import display_argv, parse_grid, planned_commands

grid = parse_grid({
    "sweep": {"command": "wirelab reservoir run", "metric": "summary.memory-capacity.connectome"},
    "fixed": {"task": "memory-capacity", "connectome": "larva", "nulls": 2, "quick": True},
    "vary": {"alpha": [0.5, 1.0], "seed": {"range": [0, 2]}},
})
print(len(grid.points()), "points:", [p.params for p in grid.points()])
for index, point_id, argv in planned_commands(grid, "runs/gain-sweep"):
    print(index, point_id, display_argv(argv))
# run_sweep(grid, "runs/gain-sweep", SweepOptions(backend="ray", workers=2)).rows: the table
```
"""

from wirelab.sweep.grid import Grid, Point, display_argv, load_grid, parse_grid
from wirelab.sweep.options import SweepOptions
from wirelab.sweep.plan import planned_commands, point_dir_id
from wirelab.sweep.sweep import SweepResult, run_sweep

__all__ = [
    "Grid",
    "Point",
    "SweepOptions",
    "SweepResult",
    "display_argv",
    "load_grid",
    "parse_grid",
    "planned_commands",
    "point_dir_id",
    "run_sweep",
]
