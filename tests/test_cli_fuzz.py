"""CLI fuzz: every command and option, given hostile values, fails with one line or is accepted.

Each command runs in-process with `ResultDir.create` replaced by a sentinel that stops the command
the moment it would start a result directory: by then every option has been validated, so the
test never trains, simulates or downloads anything. Every option of every command gets NaN, inf,
-1, 1e300, 10**20, the empty string and non-UTF-8 bytes (issue #47), and its kind's values; the
command must either

- exit 1 or 2 with exactly one line on stderr and no traceback, or
- be *accepted* (reach the sentinel, or finish on its own with exit 0),

and leave no directory that looks like a finished run, nothing in the current directory. NaN,
inf, and text where a number belongs are never accepted; nor, in the logic and reservoir
commands, a count beyond 2**31 - 1. Every directory ``--out`` goes through the one guard
(`OutDir`). Issue #47's named logic cases: tests/logic/test_hostile_inputs.py.

The named hostile invocations of issue #33 (sizes and dense widths beyond memory, NaN and inf in
grids and timeouts, a grid command that is not a wirelab command, ``--out ''`` and ``report ''``,
a damaged ``discrete.json`` or checkpoint (tests/logic/test_hostile_inputs.py), an unwritable
``--video``) must all be refused: one
line, exit 1 or 2, no traceback, and nothing left that looks like a run.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import stat
from pathlib import Path
from typing import Any

import click
import pytest

from wirelab import results
from wirelab.cli import cli, main
from wirelab.cli_options import OutDir
from wirelab.fly import envs


class Accepted(BaseException):
    """Raised instead of creating a result directory: the command accepted its arguments."""


def _leaves() -> dict[str, click.Command]:
    ctx = click.Context(cli)
    found: dict[str, click.Command] = {}

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    walk(sub, (*path, name))
        else:
            found[" ".join(path)] = cmd

    walk(cli, ())
    return found


COMMANDS = _leaves()

NUMBERS_BAD = ["nan", "inf", "-inf", "1e400", "abc", ""]
FLOAT_VALUES = [*NUMBERS_BAD, "-1", "0", "1e12"]
INT_VALUES = ["-1", "0", "1000000000000", "abc", "", "1.5", "nan"]
TEXT_VALUES = ["", "nosuch", ",", "a,,b", "-1", "nan", "1e12"]


def _kind(p: click.Parameter) -> str:
    t = p.type
    if isinstance(t, click.Path) or t.name in ("directory", "file", "path"):
        return "path"
    if isinstance(t, (click.types.FloatParamType, click.FloatRange)) or t.name == "float":
        return "float"
    if isinstance(t, (click.types.IntParamType, click.IntRange)):
        return "int"
    if isinstance(t, click.types.BoolParamType) or getattr(p, "is_flag", False):
        return "flag"
    return "text"


def _paths(tmp: Path) -> list[str]:
    a_file = tmp / "a-file"
    a_file.write_text("not a directory\n")
    locked = tmp / "locked"
    locked.mkdir(exist_ok=True)
    (locked / "x").write_text("x")
    locked.chmod(0)
    return [str(a_file), str(a_file / "below"), str(locked / "x"), "/proc/no/such/dir", ""]


def _base(name: str, cmd: click.Command, tmp: Path) -> list[str]:
    """The smallest valid invocation (required arguments), with --out in a fresh directory."""
    args: list[str] = []
    for p in cmd.params:
        if isinstance(p, click.Argument) and p.required:
            if isinstance(p.type, click.Choice):
                args.append(str(p.type.choices[0]))
            elif name == "sweep":
                grid = tmp / "grid.toml"
                grid.write_text('command = "wirelab data list"\n[params]\nx = [1]\n')
                args.append(str(grid))
            else:
                args.append(str(tmp))
        elif isinstance(p, click.Option) and p.required and _kind(p) == "int":
            args += [p.opts[0], "1"]
        elif isinstance(p, click.Option) and p.required and p.opts[0] != "--out":
            choices = (
                getattr(p.type, "choices", None)
                or getattr(getattr(p.type, "registry", None), "names", lambda: ("x",))()
            )
            args += [p.opts[0], str(next(iter(choices)))]
    if any(isinstance(p, click.Option) and "--out" in p.opts for p in cmd.params):
        args += ["--out", str(tmp / "out")]
    return args


def _invoke(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, int, str]:
    def refuse(*a: Any, **k: Any) -> None:
        raise Accepted

    monkeypatch.setattr(results.ResultDir, "create", refuse)
    # a fly run handed to the fly environment has passed validation here: stop it there too
    monkeypatch.setattr(envs, "run_in_fly_env", refuse)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(argv)
    except Accepted:
        return "accepted", 0, err.getvalue()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
        return ("ok" if code == 0 else "error"), code, err.getvalue()
    return "ok", 0, err.getvalue()


def _check(argv: list[str], tmp: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    outcome, code, err = _invoke(argv, monkeypatch)
    if outcome == "error":
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert code in (1, 2), (argv, code, err)
        assert "Traceback" not in err and len(lines) == 1, (argv, err)
    for metrics in tmp.rglob("metrics.json"):
        raise AssertionError(f"{argv}: left a finished-looking run at {metrics.parent}")
    return outcome


def _options(cmd: click.Command) -> list[click.Parameter]:
    return [p for p in cmd.params if _kind(p) != "flag" and p.name not in ("help",)]


def _swap(base: list[str], p: click.Parameter, value: str) -> list[str]:
    """``base`` with ``p`` set to ``value`` (replacing a required value already there)."""
    if isinstance(p, click.Argument):
        args = list(base)
        idx = [i for i, a in enumerate(base) if not a.startswith("-")][:1]
        if idx:
            args[idx[0]] = value
            return args
        return [*args, value]
    flag = p.opts[0]  # type: ignore[attr-defined]
    args = list(base)
    if flag in args:
        i = args.index(flag)
        del args[i : i + 2]
    return [*args, flag, value]


@pytest.fixture
def unlock(tmp_path: Path):  # type: ignore[no-untyped-def]
    yield tmp_path
    for p in tmp_path.rglob("*"):
        with contextlib.suppress(OSError):
            p.chmod(stat.S_IRWXU)


FLOAT_OPTIONS = [
    (name, p.opts[0])  # type: ignore[attr-defined]
    for name, cmd in COMMANDS.items()
    for p in _options(cmd)
    if isinstance(p, click.Option) and _kind(p) == "float"
]


@pytest.mark.parametrize(("name", "flag"), FLOAT_OPTIONS)
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "abc"])
def test_non_finite_floats_are_refused_up_front(
    name: str, flag: str, value: str, unlock: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cmd = COMMANDS[name]
    p = next(q for q in cmd.params if isinstance(q, click.Option) and q.opts[0] == flag)
    argv = [*name.split(), *_swap(_base(name, cmd, unlock), p, value)]
    assert _check(argv, unlock, monkeypatch) == "error", argv


EVERY_OPTION = [
    (name, p.name) for name, cmd in COMMANDS.items() for p in _options(cmd) if p.name is not None
]
NON_UTF8 = b"\xff\xfe-not-utf-8".decode("utf-8", "surrogateescape")  # argv as Python gets it
# issue #47: every option of every command gets these (besides its kind's pool above)
HOSTILE = ["nan", "inf", "-1", "1e300", "-1e300", str(10**20), "", NON_UTF8]
STRICT_GROUPS = ("logic", "reservoir")  # bounded where read: 10**20 and 1e300 counts refused
EXECUTOR = ("workers", "backend", "address")  # wirelab.parallel's options (its own tests)


@pytest.mark.parametrize(("name", "param"), EVERY_OPTION, ids=[f"{n}:{o}" for n, o in EVERY_OPTION])
def test_every_option_gives_one_line_on_hostile_values(
    name: str, param: str, unlock: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every option of every command, each hostile value: one line (exit 1 or 2) or accepted;
    never a traceback, never a finished-looking run, nothing written in the current directory.
    Numbers: NaN, inf and text never accepted; in the logic and reservoir commands an integer
    beyond 2**31 - 1 is never accepted either."""
    cmd = COMMANDS[name]
    p = next(q for q in cmd.params if q.name == param)
    cwd = unlock / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    kind = _kind(p)
    pool = {"float": FLOAT_VALUES, "int": INT_VALUES, "text": TEXT_VALUES}.get(kind) or (
        _paths(unlock) if kind == "path" else []
    )
    for value in dict.fromkeys([*HOSTILE, *pool]):
        argv = [*name.split(), *_swap(_base(name, cmd, unlock), p, value)]
        outcome = _check(argv, unlock, monkeypatch)
        left = [x.name for x in cwd.iterdir() if x.name != value]  # --out nan: ./nan, as asked
        assert left == [], (argv, left)
        for x in cwd.iterdir():
            shutil.rmtree(x)
        if kind in ("float", "int") and value in ("nan", "inf", "-inf", "abc", "", NON_UTF8):
            assert outcome == "error", argv
        strict = name.split()[0] in STRICT_GROUPS and param not in EXECUTOR
        if strict and kind == "int" and value in (str(10**20), "1e300", "1000000000000"):
            assert outcome == "error", argv


# ---- issue #33: named hostile invocations, each refused before anything is allocated or written
HOSTILE_SIZES = [
    ["attention", "pooling", "--distractors", "1000000000"],
    ["attention", "pooling", "--distractors", "4,16,100000000000"],
    ["attention", "pooling", "--batch", "100000000000"],
    ["attention", "pooling", "--test-bags", "100000000000"],
    ["attention", "positional", "--length", "100000000"],
    ["attention", "positional", "--dim", "100000000"],
    ["attention", "translate", "--dim", "1000000"],
    ["attention", "translate", "--layers", "100000000000"],
    ["attention", "translate", "--batch", "1000000000000"],
    ["attention", "complexity", "--ns", "64,10000000000"],
    ["attention", "complexity", "--ds", "32,100000000"],
    ["attention", "complexity", "--r", "1000000000000"],
    ["attention", "complexity", "--k", "100000000001"],
    ["attention", "complexity", "--path-ns", "16,1000000"],
    ["logic", "train", "--dense", "99999999999,99999999999"],
    ["logic", "train", "--dense", "9999999999", "--gate-param", "light", "--batch-size", "1"],
    ["reservoir", "run", "--task", "narma10", "--nulls", "1000000000"],  # issue #47
]

GRIDS = {
    "nan-inf": '[sweep]\ncommand = "wirelab reservoir run"\n[vary]\nalpha = [nan, inf]\n',
    "fixed-inf": '[sweep]\ncommand = "wirelab reservoir run"\n[fixed]\nalpha = -inf\n'
    "[vary]\nseed = [0]\n",
    "linspace-nan": '[sweep]\ncommand = "wirelab reservoir run"\n[vary]\n'
    "alpha = { linspace = [0, nan, 3] }\n",
    "nested-nan": '[sweep]\ncommand = "wirelab logic train"\n[vary]\ndense = [[64, nan]]\n',
    "not-wirelab": '[sweep]\ncommand = "rm -rf /"\n[vary]\nseed = [0]\n',
    "unknown-command": '[sweep]\ncommand = "wirelab frobnicate"\n[vary]\nseed = [0]\n',
    "a-group": '[sweep]\ncommand = "wirelab logic"\n[vary]\nseed = [0]\n',
    "no-out": '[sweep]\ncommand = "wirelab data list"\n[vary]\nseed = [0]\n',
}
GOOD_GRID = '[sweep]\ncommand = "wirelab reservoir run"\n[vary]\nseed = [0, 1]\n'
RUN_FILES = ("config.json", "metrics.json", "failed.json", ".in-progress", ".lock")

OUT_COMMANDS = [
    name
    for name, cmd in COMMANDS.items()
    for p in cmd.params
    if isinstance(p, click.Option) and "--out" in p.opts and isinstance(p.type, OutDir)
]


def test_every_out_directory_goes_through_the_guard() -> None:
    """Every ``--out`` is `OutDir` (``''`` refused, files refused) but report's, a page."""
    plain = [
        name
        for name, cmd in COMMANDS.items()
        for p in cmd.params
        if isinstance(p, click.Option) and "--out" in p.opts and not isinstance(p.type, OutDir)
    ]
    assert plain == ["report"]


def _refused(argv: list[str], tmp: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run ``argv`` in ``tmp``; it must fail with one line (exit 1 or 2, no traceback) and leave
    nothing that looks like a run. Returns the line."""
    monkeypatch.chdir(tmp)
    outcome, code, err = _invoke(argv, monkeypatch)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert outcome == "error" and code in (1, 2), (argv, outcome, err)
    assert "Traceback" not in err and len(lines) == 1, (argv, err)
    left = [p for p in tmp.rglob("*") if p.name in RUN_FILES or p.name == "points"]
    assert left == [], (argv, left)
    return lines[0]


@pytest.mark.parametrize("args", HOSTILE_SIZES, ids=" ".join)
def test_hostile_sizes_are_refused_naming_the_memory_limit(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = _refused([*args, "--out", str(tmp_path / "out")], tmp_path, monkeypatch)
    assert "of memory, over the limit of" in line and "available" in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("dry_run", [True, False])
@pytest.mark.parametrize("grid", sorted(GRIDS))
def test_hostile_grids_are_refused(
    grid: str, dry_run: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "grid.toml"
    path.write_text(GRIDS[grid])
    argv = ["sweep", str(path), "--out", str(tmp_path / "o"), *(["--dry-run"] if dry_run else [])]
    _refused(argv, tmp_path, monkeypatch)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("dry_run", [True, False])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "abc"])
def test_hostile_timeouts_are_refused(
    value: str, dry_run: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "grid.toml"
    path.write_text(GOOD_GRID)
    argv = ["sweep", str(path), "--out", str(tmp_path / "o"), "--timeout", value]
    line = _refused([*argv, *(["--dry-run"] if dry_run else [])], tmp_path, monkeypatch)
    assert "--timeout" in line, line


@pytest.mark.parametrize("name", OUT_COMMANDS)
def test_empty_out_is_refused(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = COMMANDS[name]
    p = next(q for q in cmd.params if isinstance(q, click.Option) and "--out" in q.opts)
    base = _base(name, cmd, tmp_path)
    if name == "sweep":
        (tmp_path / "grid.toml").write_text(GOOD_GRID)
    line = _refused([*name.split(), *_swap(base, p, "")], tmp_path, monkeypatch)
    assert "'' is empty" in line, line


# ---- issue #33, second part: report and tour paths, damaged run files and video paths
@pytest.mark.parametrize(
    "argv",
    [["report", ""], ["report", "", "--out", "page.html"], ["tour", "--out", ""]],
    ids=" ".join,
)
def test_empty_report_and_tour_paths_are_usage_errors(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = _refused(argv, tmp_path, monkeypatch)
    assert "'' is empty" in line, line
    assert list(tmp_path.iterdir()) == []  # no page, no tour folder


def _video_paths(tmp: Path) -> list[str]:
    a_file = tmp / "a-file"
    a_file.write_text("not a directory\n")
    return ["/proc/x.mp4", "/proc/no/such/dir/x.mp4", str(a_file / "below.mp4"), str(tmp)]


@pytest.mark.parametrize("which", range(4))
def test_unwritable_video_is_refused_before_any_work(
    which: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    video = _video_paths(tmp_path)[which]
    argv = ["fly", "stimulate", "--side", "left", "--body", "flygym", "--video", video]
    line = _refused([*argv, "--out", str(tmp_path / "out")], tmp_path, monkeypatch)
    assert "--video" in line, line
    assert not (tmp_path / "out").exists()
