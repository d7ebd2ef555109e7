from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wirelab.errors import UsageError
from wirelab.sweep import point_dir_id
from wirelab.sweep.grid import command_argv, load_grid, options, parse_grid


def grid(**tables: object) -> dict[str, object]:
    return {"sweep": {"command": "wirelab logic train"}, **tables}


def test_expansion_order_and_value_specs() -> None:
    g = parse_grid(
        grid(
            vary={
                "width": [64, 256],
                "seed": {"range": [0, 3]},
                "tau": {"linspace": [10, 30, 3]},
                "lr": 0.01,
            }
        )
    )
    pts = g.points()
    assert len(pts) == 2 * 3 * 3 * 1
    assert pts[0].params == {"width": 64, "seed": 0, "tau": 10.0, "lr": 0.01}
    assert pts[1].params["tau"] == 20.0  # the last key varies fastest
    assert pts[-1].params == {"width": 256, "seed": 2, "tau": 30.0, "lr": 0.01}
    assert [p.index for p in pts] == list(range(18))


def test_options_and_argv() -> None:
    assert options({"batch_size": 8, "dense": [64, 64], "quiet": True, "resume": False}) == [
        "--batch-size", "8", "--dense", "64,64", "--quiet",
    ]  # fmt: skip
    assert options({"alpha": 1.0, "x": 0.5}) == ["--alpha", "1.0", "--x", "0.5"]
    assert command_argv("wirelab logic train") == [
        sys.executable,
        "-m",
        "wirelab.cli",
        "logic",
        "train",
    ]
    assert command_argv("python -m a.b") == [sys.executable, "-m", "a.b"]
    g = parse_grid(grid(fixed={"dataset": "mnist"}, vary={"dense": [[8, 8]]}))
    (p,) = g.points()
    assert g.argv_before_out(p)[-4:] == ["--dataset", "mnist", "--dense", "8,8"]


def test_point_ids_stable_and_sensitive_to_fixed_options() -> None:
    a = parse_grid(grid(fixed={"epochs": 1}, vary={"seed": [0, 1]}))
    b = parse_grid(grid(fixed={"epochs": 1}, vary={"seed": [1, 0, 2]}))
    c = parse_grid(grid(fixed={"epochs": 2}, vary={"seed": [0, 1]}))
    ida = {p.params["seed"]: point_dir_id(a, p) for p in a.points()}
    idb = {p.params["seed"]: point_dir_id(b, p) for p in b.points()}
    idc = {p.params["seed"]: point_dir_id(c, p) for p in c.points()}
    assert ida[0] == idb[0] and ida[1] == idb[1]  # adding a value keeps the others
    assert ida[0] != ida[1] and ida[0] != idc[0]
    assert len(ida[0]) == 12


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"vary": {}}, "needs command"),
        (grid(extra={}), "unknown tables"),
        ({"sweep": {"command": "x", "foo": 1}}, "unknown \\[sweep\\] keys"),
        (grid(fixed={"a": 1}, vary={"a": [1]}), "both fixed and varied"),
        (grid(vary={"a": []}), "empty list"),
        (grid(vary={"a": {"range": [3, 3]}}), "gives no values"),
        (grid(vary={"a": {"range": [0.5]}}), "1-3 integers"),
        (grid(vary={"a": {"linspace": [0, 1]}}), "start, stop, count"),
        (grid(vary={"a": {"log": [1, 2]}}), "use a list"),
        (grid(vary={"a": [1, 1]}), "repeats a point"),
        (grid(fixed={"out": "x"}), "--out is set by the sweep"),
        ({"sweep": {"command": ""}}, "command is empty"),
        ({"sweep": {"command": "x", "retries": -1}}, "retries"),
    ],
)
def test_bad_grids(doc: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_grid(doc, "g.toml")


def test_load_grid_file_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        load_grid(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[sweep\ncommand=")
    with pytest.raises(UsageError, match=r"bad\.toml"):
        load_grid(bad)


def test_derived_options() -> None:
    g = parse_grid(
        grid(
            vary={"width": [64, 256], "depth": [2, 3], "seed": [0]},
            derive={
                "dense": {"repeat": "width", "times": "depth"},
                "name": {"format": "w{width}-d{depth}"},
            },
        )
    )
    p = g.points()[1]
    assert p.params == {"width": 64, "depth": 3, "seed": 0}
    assert g.table_only == {"width", "depth"}
    argv = g.argv_before_out(p)
    assert argv[-6:] == ["--seed", "0", "--dense", "64,64,64", "--name", "w64-d3"]
    assert "--width" not in argv and "--depth" not in argv
    with pytest.raises(UsageError, match="not in \\[vary\\]"):
        parse_grid(grid(vary={"w": [1]}, derive={"d": {"repeat": "w", "times": "k"}}))
    with pytest.raises(UsageError, match="must vary over integers"):
        parse_grid(grid(vary={"w": [1], "k": [1.5]}, derive={"d": {"repeat": "w", "times": "k"}}))
    with pytest.raises(UsageError, match="use"):
        parse_grid(grid(vary={"w": [1]}, derive={"d": "w"}))
