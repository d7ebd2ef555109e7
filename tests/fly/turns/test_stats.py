"""The turn study against its nulls: rank p, z and difference per family (`compare_nulls`)."""

from __future__ import annotations

from typing import Any

import pytest

from wirelab.fly.turns.stats import against, compare_nulls, null_family


def lr_row(model: str, mean: Any) -> dict[str, Any]:
    return {"model": model, "condition": "left-right", "turn": {"n": 2, "mean": mean}}


def test_against_ranks_the_size_of_the_turn() -> None:
    c = against(-40.0, [10.0, -50.0, 20.0, -5.0])  # |.|: 10, 50, 20, 5; one null as far
    assert c["p"] == pytest.approx(2 / 5)
    assert c["observed"] == 40.0 and c["nulls"] == [10.0, 50.0, 20.0, 5.0]
    assert c["observed_lr"] == -40.0 and c["nulls_lr"] == [10.0, -50.0, 20.0, -5.0]
    assert c["null_mean"] == pytest.approx(21.25)
    sd = (sum((v - 21.25) ** 2 for v in (10, 50, 20, 5)) / 3) ** 0.5
    assert c["null_sd"] == pytest.approx(sd)
    assert c["difference"] == pytest.approx(18.75)
    assert c["z"] == pytest.approx(18.75 / sd)
    one = against(3.0, [1.0])
    assert one["z"] is None and one["p"] == 0.5  # no sd from one null
    assert against(3.0, [1.0, 1.0])["z"] is None  # sd 0


def test_compare_nulls_groups_the_families() -> None:
    table = [
        {"model": "(all)", "condition": "control", "turn": {"mean": 0.0}},
        lr_row("row", -40.0),
        lr_row("mirror", 40.0),
        *(lr_row(f"null-{i}", v) for i, v in enumerate([10.0, -50.0, 20.0])),
        *(lr_row(f"null-degree-boundary-{i}", v) for i, v in enumerate([1.0, 2.0, -3.0])),
        lr_row("null-7", "junk"),  # a non-number is skipped
        "not a row",
    ]
    c = compare_nulls(table)  # type: ignore[arg-type]
    assert c["model"] == "row" and c["statistic"] == "|L - R| (degrees)"
    assert list(c["families"]) == ["degree", "degree-boundary"]
    degree, boundary = c["families"]["degree"], c["families"]["degree-boundary"]
    assert degree["models"] == ["null-0", "null-1", "null-2"] and degree["family"] == "degree"
    assert degree["p"] == pytest.approx(2 / 4) and degree["n_nulls"] == 3
    assert boundary["p"] == pytest.approx(1 / 4) and boundary["z"] > degree["z"]
    assert compare_nulls([lr_row("row", 1.0)]) == {}  # no nulls
    assert compare_nulls([lr_row("null-1", 1.0)]) == {}  # no reference model


def test_null_family_of_a_name() -> None:
    assert null_family("null-3") == "degree"
    assert null_family("null-degree-noloops-0") == "degree-noloops"
    assert null_family("row") is None and null_family(None) is None
    assert null_family("null-bogus-1") == "unknown"  # a hostile metrics file: no error
