"""The choice study's card: the connectome against each null family, answered together."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.report.headlines.fly_choice import choice, choices
from wirelab.report.runs import Run


def _run(path: Path, family: str, p_same: float, p_best: float, n: int = 99) -> Run:
    def rule(p: float) -> dict[str, Any]:
        return {
            "observed": 0.6,
            "null_mean": 0.4,
            "null_sd": 0.3,
            "n_nulls": n,
            "p": p,
            "z": 1.0,
            "cohens_h": 0.4,
        }

    metrics = {
        "conditions": [
            {
                "condition": "connectome",
                "trials": 100,
                "success_rate": 0.6,
                "success_ci": [0.5, 0.69],
            },
            {"condition": "input-control", "trials": 100, "success_rate": 0.05},
            {"condition": "null-1", "trials": 100, "success_rate": 0.3},
        ],
        "nulls": {"family": family, "same_gain": rule(p_same), "own_best_gain": rule(p_best)},
        "shortcuts": {
            "connectome": {"olfactory": {"one_hop": 0.0}},
            "nulls": {"olfactory": {"one_hop": {"mean": 0.038}}},
        },
    }
    config = {
        "command": "wirelab fly choice",
        "config": {"task": {"seed": 2026}, "network": {"attractive_class": "olfactory"}},
    }
    return Run(path=path / family, name=family, config=config, metrics=metrics)


def test_yes_only_against_every_family_at_both_gain_rules(tmp_path: Path) -> None:
    both = [_run(tmp_path, "degree", 0.01, 0.02), _run(tmp_path, "degree-boundary", 0.01, 0.01)]
    ((h, members),) = choices(both)
    assert h.outcome == "yes" and members == both
    assert "60%" in h.answer and "[50%, 69%]" in h.uncertainty


def test_beating_plain_nulls_but_not_boundary_nulls_is_a_no_that_names_both(
    tmp_path: Path,
) -> None:
    runs = [_run(tmp_path, "degree", 0.01, 0.01), _run(tmp_path, "degree-boundary", 0.3, 0.5)]
    ((h, _),) = choices(runs)
    assert h.outcome == "no"
    assert "above 99 degree-preserving nulls (p = 0.01 and 0.01)" in h.verdict
    assert "not above 99 boundary-preserving degree nulls (p = 0.3 and 0.5)" in h.verdict
    assert any("3.80%" in c.note for c in h.comparisons)  # the shortcut share beside the score


def test_an_advantage_a_null_s_own_gain_undoes_is_none(tmp_path: Path) -> None:
    h = choice(_run(tmp_path, "degree", 0.01, 0.2))
    assert h is not None and h.outcome == "no"


def test_five_nulls_cannot_decide(tmp_path: Path) -> None:
    h = choice(_run(tmp_path, "degree", 1 / 6, 1 / 6, n=5))
    assert h is not None and h.outcome == "no"  # the confirmatory study answers for it
    assert h.verdict.startswith("No, resolved by `wirelab fly choice --nulls 99")
    assert "too few nulls" in h.verdict and h.comparisons[-1].who == "the resolving study"


def test_one_family_alone_is_not_grouped(tmp_path: Path) -> None:
    assert choices([_run(tmp_path, "degree", 0.01, 0.01)]) == []
