"""A grid file (TOML) and its expansion into points.

.. code-block:: toml

    [sweep]
    command = "wirelab logic train"   # any command that takes --out DIR and writes a result dir
    metric = "test_accuracy"           # the metric the summary plot shows (optional)
    retries = 1                        # extra attempts for a failing point (default 1)

    [fixed]                            # passed to every point as --key value
    dataset = "mnist"
    classes = "0,1"

    [vary]                             # the cartesian product of these
    dense = [[64, 64], [256, 256]]     # a list value is passed comma-joined: --dense 64,64
    seed = { range = [0, 3] }          # 0, 1, 2 (Python range: start, stop[, step])
    tau = { linspace = [10, 30, 3] }   # 10.0, 20.0, 30.0
    lr = 0.01                          # a scalar is one value

    [derive]                           # options computed from varied keys (which then become
    dense = { repeat = "width", times = "depth" }   # table columns only): --dense 64,64,64
    name = { format = "w{width}-d{depth}" }

A grid may have at most ``max_points`` points (`DEFAULT_MAX_POINTS`; ``wirelab sweep
--max-points N`` raises it); the size is the product of the value counts, checked before any list
of values or points is built, so a mistyped range fails at once.

The command must be a wirelab command that writes a result directory (``wirelab GROUP COMMAND``,
resolved through the CLI and taking ``--out``), or ``python -m MODULE`` for an experiment module
of one's own; anything else (another program, ``python -c``, a script path) is refused when the
grid is read (``--dry-run`` too). A grid runs the code its command names, as a script would.
Every number in ``[fixed]`` and ``[vary]`` must be finite: NaN and inf are refused with one line
naming the key.

Keys become options with underscores turned into dashes (``batch_size`` -> ``--batch-size``);
``true`` passes a bare flag, ``false`` leaves it out. A point is named by a hash of its
parameters, the command and the fixed options (`wirelab.sweep.plan.point_dir_id`), so adding
values to the grid keeps the points that did not change, and their results.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import numpy as np

from wirelab.errors import UsageError

Scalar = bool | int | float | str
DEFAULT_MAX_POINTS = 10_000


@dataclass(frozen=True)
class Point:
    """One experiment of the grid: its index in expansion order and its varied parameters."""

    index: int
    params: dict[str, Any]


@dataclass(frozen=True)
class BatchSpec:
    """``[batch]``: points differing only in ``key`` run as one command (`wirelab.sweep.batch`)."""

    key: str
    rows: str


@dataclass
class Grid:
    """A checked grid: the command, ``--key value`` options fixed for every point, the values of
    the varied keys (their cartesian product is the points, `points`), options derived from
    varied keys, the metric the summary plot shows, extra attempts of a failing point, the
    optional ``[batch]`` spec and where it was read from. Build one with `load_grid` or
    `parse_grid` (they check it)."""

    command: str
    fixed: dict[str, Any] = field(default_factory=dict)
    vary: dict[str, list[Any]] = field(default_factory=dict)
    derive: dict[str, dict[str, str]] = field(default_factory=dict)
    metric: str | None = None
    retries: int = 1
    batch: BatchSpec | None = None
    source: str = ""

    @property
    def table_only(self) -> set[str]:
        """Varied keys that only feed a derived option and are not passed themselves."""
        used: set[str] = set()
        for spec in self.derive.values():
            if "repeat" in spec:
                used |= {spec["repeat"], spec["times"]}
            else:
                used |= set(re.findall(r"\{(\w+)\}", spec["format"]))
        return used

    def points(self) -> list[Point]:
        """The cartesian product of ``vary`` in file order (the last key varies fastest)."""
        keys = list(self.vary)
        combos = itertools.product(*(self.vary[k] for k in keys))
        return [Point(i, dict(zip(keys, c, strict=True))) for i, c in enumerate(combos)]

    def point_options(self, point: Point) -> dict[str, Any]:
        """The options of one point: fixed, varied (less table-only keys), then derived."""
        opts = {**self.fixed}
        opts.update({k: v for k, v in point.params.items() if k not in self.table_only})
        for key, spec in self.derive.items():
            if "repeat" in spec:
                opts[key] = [point.params[spec["repeat"]]] * int(point.params[spec["times"]])
            else:
                opts[key] = spec["format"].format(**point.params)
        return opts

    def argv_before_out(self, point: Point) -> list[str]:
        """The command line of one point; the backend appends ``--out DIR``."""
        return command_argv(self.command) + options(self.point_options(point))

    def to_dict(self) -> dict[str, Any]:
        """The grid as plain data (the sweep's ``config.json``)."""
        return {
            "command": self.command,
            "fixed": self.fixed,
            "vary": self.vary,
            "derive": self.derive,
            "metric": self.metric,
            "retries": self.retries,
            "batch": {"key": self.batch.key, "rows": self.batch.rows} if self.batch else None,
        }


def command_argv(command: str) -> list[str]:
    """Split ``command``; a leading ``wirelab`` or ``python`` runs this very interpreter."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:  # e.g. "No closing quotation"
        raise UsageError(f"the grid's command {command!r} cannot be split: {exc}") from None
    if not argv:
        raise UsageError("the grid's command is empty")
    if argv[0] == "wirelab":
        return [sys.executable, "-m", "wirelab.cli", *argv[1:]]
    if argv[0] in ("python", "python3"):
        return [sys.executable, *argv[1:]]
    return argv


_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def check_command(command: str) -> None:
    """One-line `UsageError` unless ``command`` is a wirelab command taking ``--out`` (resolved
    through the CLI's groups) or ``python -m MODULE ...`` (an experiment module of one's own, by
    its dotted name). Anything else is refused: another program, ``python -c CODE``, a script
    path, ``python`` with other flags. A grid runs the code its command names, as a script would:
    a wirelab command, or the module it names (docs/sweep.md)."""
    command_argv(command)  # splits, and is not empty
    words = shlex.split(command)
    if words[0] in ("python", "python3"):
        if len(words) >= 3 and words[1] == "-m" and _MODULE.match(words[2]):
            return
        raise UsageError(
            f"the grid's command {_shown(command)} is not a wirelab command: a python command "
            "must be python -m MODULE (an experiment module of your own; not -c or a script)"
        )
    if words[0] != "wirelab":
        raise UsageError(
            f"the grid's command {_shown(command)} is not a wirelab command: use wirelab GROUP "
            "COMMAND, or python -m MODULE for an experiment of your own"
        )
    from wirelab.cli import cli

    ctx = click.Context(cli)
    cmd: click.Command = cli
    path = ["wirelab"]
    for word in words[1:]:
        if not isinstance(cmd, click.Group):
            break
        sub = cmd.get_command(ctx, word)
        if sub is None:
            choices = ", ".join(cmd.list_commands(ctx))
            raise UsageError(
                f"the grid's command: {' '.join(path)} has no command {word!r} (choose from "
                f"{choices})"
            )
        cmd, path = sub, [*path, word]
    if isinstance(cmd, click.Group):
        raise UsageError(f"the grid's command {' '.join(path)} is a group, not a command")
    if not any(isinstance(p, click.Option) and "--out" in p.opts for p in cmd.params):
        raise UsageError(f"the grid's command {' '.join(path)} takes no --out DIR")


def _shown(command: str) -> str:
    """The command as one safe line for an error message (at most 80 characters)."""
    text = command.encode("ascii", "backslashreplace").decode()
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _check_finite(where: str, value: Any) -> None:
    """One-line `UsageError` for a NaN or infinite number in ``value`` (lists searched)."""
    if isinstance(value, list):
        for v in value:
            _check_finite(where, v)
    elif isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{where} = {value} is not a finite number")


def display_argv(argv: list[str]) -> str:
    """A command line as a user would type it (``wirelab ...`` for this interpreter's CLI)."""
    if argv[:3] == [sys.executable, "-m", "wirelab.cli"]:
        argv = ["wirelab", *argv[3:]]
    elif argv[:1] == [sys.executable]:
        argv = ["python", *argv[1:]]
    return shlex.join(argv)


def option_value(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(option_value(v) for v in value)
    if isinstance(value, float) and value == int(value) and abs(value) < 1e15:
        return repr(value)
    return str(value)


def options(params: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in params.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif value is False or value is None:
            continue
        else:
            out += [flag, option_value(value)]
    return out


def _too_many(what: str, count: int, max_points: int) -> UsageError:
    return UsageError(
        f"{what} has {count:,} points, over the limit of {max_points:,}; "
        "pass --max-points N to allow more"
    )


def _values(key: str, spec: Any, max_points: int) -> list[Any]:
    """A ``[vary]`` entry -> its list of values (counted before it is built)."""
    if isinstance(spec, list):
        if not spec:
            raise UsageError(f"vary.{key} is an empty list")
        return list(spec)
    if isinstance(spec, dict):
        if set(spec) == {"range"} and isinstance(spec["range"], list):
            args = spec["range"]
            if not (1 <= len(args) <= 3 and all(isinstance(a, int) for a in args)):
                raise UsageError(f"vary.{key}.range takes 1-3 integers, got {args}")
            if len(args) == 3 and args[2] == 0:
                raise UsageError(f"vary.{key}.range = {args}: the step must not be zero")
            span = range(*args)
            if not span:
                raise UsageError(
                    f"vary.{key}.range = {args} gives no values (the step must go from start "
                    "towards stop)"
                )
            if len(span) > max_points:
                raise _too_many(f"vary.{key}.range = {args}", len(span), max_points)
            values: list[Any] = list(span)
        elif set(spec) == {"linspace"} and isinstance(spec["linspace"], list):
            args = spec["linspace"]
            numbers = all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args)
            if len(args) != 3 or not numbers or not isinstance(args[2], int) or args[2] < 1:
                raise UsageError(f"vary.{key}.linspace takes [start, stop, count], got {args}")
            _check_finite(f"vary.{key}.linspace", args)
            if args[2] > max_points:
                raise _too_many(f"vary.{key}.linspace = {args}", args[2], max_points)
            values = [round(float(v), 12) for v in np.linspace(args[0], args[1], args[2])]
        else:
            raise UsageError(f"vary.{key}: use a list, {{range = [...]}} or {{linspace = [...]}}")
        return values
    return [spec]


def _derive_spec(key: str, spec: Any, vary: dict[str, list[Any]]) -> dict[str, str]:
    """Check a ``[derive]`` entry: ``{repeat, times}`` or ``{format}`` over varied keys."""
    if isinstance(spec, dict) and set(spec) == {"repeat", "times"}:
        names = [spec["repeat"], spec["times"]]
        times = vary.get(str(spec["times"]), [])
        if not all(isinstance(v, int) and v >= 0 for v in times):
            raise UsageError(f"derive.{key}: times = {spec['times']!r} must vary over integers")
    elif isinstance(spec, dict) and set(spec) == {"format"} and isinstance(spec["format"], str):
        names = re.findall(r"\{(\w+)\}", spec["format"])
    else:
        raise UsageError(f"derive.{key}: use {{repeat = KEY, times = KEY}} or {{format = STR}}")
    missing = [n for n in names if n not in vary]
    if missing:
        raise UsageError(f"derive.{key} refers to {', '.join(map(str, missing))}, not in [vary]")
    return {str(k): str(v) for k, v in spec.items()}


def _batch_spec(doc: Any, grid: Grid, source: str) -> BatchSpec | None:
    if doc is None:
        return None
    if not isinstance(doc, dict) or set(doc) != {"key", "rows"}:
        raise UsageError(f"{source}: [batch] takes key = VARIED_KEY and rows = PATH")
    key, rows = str(doc["key"]), str(doc["rows"])
    if key not in grid.vary:
        raise UsageError(f"{source}: [batch] key {key!r} is not in [vary]")
    if key in grid.table_only:
        raise UsageError(f"{source}: [batch] key {key!r} feeds [derive]; batch an option")
    return BatchSpec(key, rows)


def parse_grid(
    doc: dict[str, Any], source: str = "", *, max_points: int = DEFAULT_MAX_POINTS
) -> Grid:
    """Check a parsed grid document; every mistake is a one-line `UsageError`."""
    unknown = set(doc) - {"sweep", "fixed", "vary", "derive", "batch", "description"}
    if unknown:
        raise UsageError(f"{source}: unknown tables {', '.join(sorted(unknown))}")
    sweep = doc.get("sweep", {})
    if not isinstance(sweep, dict) or not isinstance(sweep.get("command"), str):
        raise UsageError(f'{source}: [sweep] needs command = "wirelab ..."')
    bad = set(sweep) - {"command", "metric", "retries"}
    if bad:
        raise UsageError(f"{source}: unknown [sweep] keys {', '.join(sorted(bad))}")
    fixed = dict(doc.get("fixed", {}))
    vary = {str(k): _values(str(k), v, max_points) for k, v in doc.get("vary", {}).items()}
    for table, values in (("fixed", fixed), ("vary", vary)):
        for k, v in values.items():
            _check_finite(f"{source}: {table}.{k}", v)
    size = math.prod(len(v) for v in vary.values())
    if size > max_points:
        counts = " x ".join(f"{len(v):,}" for v in vary.values())
        raise _too_many(f"{source}: the grid ({counts})", size, max_points)
    both = set(fixed) & set(vary)
    if both:
        raise UsageError(f"{source}: {', '.join(sorted(both))} both fixed and varied")
    if "out" in fixed or "out" in vary:
        raise UsageError(f"{source}: --out is set by the sweep for each point")
    derive = {str(k): _derive_spec(str(k), v, vary) for k, v in doc.get("derive", {}).items()}
    clash = set(derive) & (set(fixed) | set(vary))
    if clash:
        raise UsageError(f"{source}: {', '.join(sorted(clash))} both derived and set")
    retries = sweep.get("retries", 1)
    if not isinstance(retries, int) or retries < 0:
        raise UsageError(f"{source}: retries must be a non-negative integer")
    metric = sweep.get("metric")
    if metric is not None and (not isinstance(metric, str) or not metric):
        raise UsageError(f'{source}: metric must be a column name, e.g. metric = "test_accuracy"')
    grid = Grid(
        command=sweep["command"],
        fixed=fixed,
        vary=vary,
        derive=derive,
        metric=metric,
        retries=retries,
        source=source,
    )
    grid.batch = _batch_spec(doc.get("batch"), grid, source)
    check_command(grid.command)
    keys = [json.dumps(p.params, sort_keys=True) for p in grid.points()]
    if len(set(keys)) != len(keys):
        raise UsageError(f"{source}: the grid repeats a point (duplicate values in [vary])")
    return grid


def load_grid(path: str | Path, *, max_points: int = DEFAULT_MAX_POINTS) -> Grid:
    """Read and check a grid file; every mistake is a one-line `UsageError`."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"grid file {p} does not exist")
    try:
        doc = tomllib.loads(p.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{p}: {exc}") from None
    return parse_grid(doc, str(p), max_points=max_points)
