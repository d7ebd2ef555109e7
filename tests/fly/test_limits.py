"""Every count, duration, seed and size of the fly commands is bounded where it is read
(`wirelab.fly.limits`): a number no one types honestly is one line, exit 2, before any work, and
nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab
from wirelab.errors import UsageError
from wirelab.fly import envs
from wirelab.fly.limits import MAX_COUNT, check_seconds, check_seeds, max_seconds

BIG = str(10**20)
HUGE = "1e300"

CASES = [
    ("stimulate", "--body", "flygym", "--duration", HUGE),
    ("stimulate", "--body", "flygym", "--duration", "2000"),  # > a day of flygym at 1e-4 s
    ("stimulate", "--duration", HUGE),
    ("stimulate", "--duration", "1e6"),  # kinematic: > a day
    ("stimulate", "--update-steps", BIG),
    ("stimulate", "--gain", HUGE),
    ("stimulate", "--offset", "-1e300"),
    ("stimulate", "--alpha", HUGE),
    ("stimulate", "--input-gain", HUGE),
    ("stimulate", "--seed", BIG),
    ("lateralization", "--nulls", BIG),
    ("lateralization", "--nulls", str(MAX_COUNT + 1)),
    ("lateralization", "--boot", BIG),
    ("lateralization", "--steps", BIG),
    ("lateralization", "--gains", "1,1e300"),
    ("lateralization", "--seed", str(2**32 - 1)),  # its nulls' seeds would pass 2**32 - 1
    ("turns", "--seeds", BIG),
    ("turns", "--nulls", BIG),
    ("turns", "--null-seeds", BIG),
    ("turns", "--duration", HUGE),
    ("turns", "--settle", HUGE),
    ("turns", "--body", "kinematic", "--duration", "1e7"),
    ("turns", "--frame-every", BIG),
    ("taxis", "--trials", BIG),
    ("taxis", "--train-trials", BIG),
    ("taxis", "--baseline-trials", BIG),
    ("taxis", "--time-limit", HUGE),
    ("taxis", "--body", "flygym", "--time-limit", "5000"),
    ("taxis", "--arena-radius", HUGE),
    ("taxis", "--nulls", BIG),
    ("taxis", "--seed", str(2**32 - 1)),
    ("calibrate", "--duration", HUGE),
    ("calibrate", "--duration", "400"),  # 400 s x 6 pairs: more than a day of flygym
]


def needs_side(args: tuple[str, ...]) -> list[str]:
    return ["--side", "left"] if args[0] == "stimulate" else []


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_an_unbounded_number_is_one_line_and_writes_nothing(
    tmp_path: Path, args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a case not refused here fails at once (exit 1), instead of running in the fly environment
    monkeypatch.setenv(envs.PYTHON_VAR, str(tmp_path / "no-fly-python"))
    out = tmp_path / "out"
    r = wirelab("fly", *args, *needs_side(args), "--out", out)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert one_line_error(r), r.stderr
    assert list(tmp_path.iterdir()) == []


HOSTILE = ["nan", "inf", "-inf", HUGE, BIG, "", "\udcff"]  # the last: a non-UTF-8 byte
NOT_NUMBERS = {"out", "backend", "address", "body", "connectome", "modality", "video", "write"}


def numeric_options() -> list[tuple[str, str]]:
    """``(command, option)`` for every option of every fly command that reads a number or a
    list of numbers (``--workers`` belongs to `wirelab.parallel.options`)."""
    import click

    from wirelab.fly.cli import group

    found = []
    for name, cmd in group.commands.items():
        for p in cmd.params:
            if not isinstance(p, click.Option) or p.is_flag or isinstance(p.type, click.Choice):
                continue
            if p.name not in NOT_NUMBERS | {"workers", "side", "models", "modalities"}:
                found.append((name, p.opts[0]))
    return found


@pytest.mark.parametrize("command,option", numeric_options())
def test_every_numeric_option_refuses_hostile_values(
    tmp_path: Path, command: str, option: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(envs.PYTHON_VAR, str(tmp_path / "no-fly-python"))
    side = ["--side", "left"] if command == "stimulate" else []
    for value in HOSTILE:
        r = wirelab("fly", command, option, value, *side, "--out", tmp_path / "out")
        assert r.returncode == 2 and one_line_error(r), (value, r.returncode, r.stderr)
        assert list(tmp_path.iterdir()) == [], value


def test_the_day_limit_follows_the_bodys_measured_pace() -> None:
    assert max_seconds("flygym", 1e-4) == pytest.approx(86_400 / 50)
    assert max_seconds("flygym", 5e-4) == pytest.approx(5 * max_seconds("flygym", 1e-4))
    assert max_seconds("kinematic") > 100 * max_seconds("flygym", 1e-4)
    check_seconds(30.0, "--duration", "flygym", timestep=1e-4)  # an honest run passes
    with pytest.raises(UsageError, match="1728"):
        check_seconds(2000.0, "--duration", "flygym", timestep=1e-4)


def test_derived_seeds_stay_below_2_to_the_32() -> None:
    check_seeds(2**32 - 1, 1)
    check_seeds(2**32 - 6, 5)
    with pytest.raises(UsageError, match="4294967295"):
        check_seeds(2**32 - 4, 5)


def test_the_limits_are_in_the_options_help() -> None:
    r = wirelab("fly", "lateralization", "--help")
    assert "0<=x<=1000000" in " ".join(r.stdout.split())  # --boot
