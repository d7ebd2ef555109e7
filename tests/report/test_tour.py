"""The cards the tour's runs answer: the turn study against its rewirings (the rank p-value), the
0-vs-1 circuit's fit in placed cells and Fmax, and a run too small to decide answered by the
committed study that resolves it (never "not resolved")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.report.stories import logic_metrics
from tests.report.test_story import answer
from wirelab.report.headlines.base import Headline
from wirelab.report.headlines.resolution import Resolution

TURNS = "wirelab fly turns"


def stat(mean: float, half: float, n: int = 2) -> dict[str, Any]:
    return {
        "n": n,
        "mean": mean,
        "ci": [mean - half, mean + half],
        "excludes_zero": half < abs(mean),
    }


def null_turns(row: float, nulls: list[float], half: float = 0.0) -> dict[str, Any]:
    """A turn study's metrics: the connectome (``row``) turning +-row/2 per side against the
    control, and nulls with L - R ``nulls`` (the kinematic body: no drift, zero-width CIs)."""
    table: list[dict[str, Any]] = [
        {"model": "(all)", "condition": "control", "turn": stat(0.0, 0.0)}
    ]
    for model, d in [("row", row), *((f"null-{i}", v) for i, v in enumerate(nulls))]:
        for condition, side in (("left", d / 2), ("right", -d / 2)):
            table.append(
                {
                    "model": model,
                    "condition": condition,
                    "turn": stat(side, half),
                    "minus_control": stat(side, half),
                }
            )
        table.append({"model": model, "condition": "left-right", "turn": stat(d, half)})
    return {"table": table}


def test_turns_against_nulls_ranks_the_connectome(tmp_path: Path) -> None:
    nulls = [-32.7, 8.5, 25.8] + [1.0] * 16  # 19 nulls, all turning less than the connectome
    h = answer(tmp_path, TURNS, null_turns(-42.2, nulls))
    assert h.question == "Does the wiring decide which way the fly turns, against degree nulls?"
    assert h.outcome == "yes"
    assert h.verdict == (
        "Yes: opposite turns, L − R = -42.2°, farther than every one of 19 degree rewirings "
        "(p = 0.05 ≤ 0.05)."
    )
    assert h.uncertainty.startswith(
        "p = 0.05 against 19 degree nulls; the smallest p 19 nulls can give is 0.05;"
    )
    assert "19 degree nulls: L − R -32.7° to +25.8°" in h.answer
    assert "right +21.1° (row-normalised connectome)" in h.answer  # the model "row" in words
    assert len(h.comparisons) == 3  # left, right of the connectome; the nulls' mean


def test_turns_against_nulls_resolved_by_the_null_study_when_a_null_turns_as_far(
    tmp_path: Path,
) -> None:
    h = answer(tmp_path, TURNS, null_turns(-42.2, [-50.0] + [1.0] * 18))
    assert h.outcome == "yes"  # the committed 99-null study answers; this run is quoted
    assert h.verdict.startswith("Yes, resolved by `wirelab fly turns --body kinematic")
    assert "p = 0.02" in h.verdict and "p = 0.01" in h.verdict
    assert "1 of 19 degree rewirings turn the fly as far (p = 0.1 > 0.05)" in h.verdict
    assert h.comparisons[-1].who == "the resolving study"
    h = answer(tmp_path, TURNS, null_turns(-42.2, [1.0] * 19, half=50.0))  # CI includes 0
    assert h.outcome == "yes" and "the CI of L − R includes 0" in h.verdict


def test_turns_same_way_is_no_whatever_the_nulls(tmp_path: Path) -> None:
    m = null_turns(-42.2, [1.0] * 19)
    for row in m["table"]:
        if row["model"] == "row" and row["condition"] == "right":
            row["minus_control"] = stat(-5.0, 0.0)
    h = answer(tmp_path, TURNS, m)
    assert h.outcome == "no" and h.verdict.startswith("No: both sides turn the fly the same way")


PNR = {
    "ice40-up5k": {
        "luts": 663,
        "fits": True,
        "device_luts": 5280,
        "pnr": {
            "fmax_mhz": 18.34,
            "timing_met": True,
            "clock_mhz": 12,
            "logic_cells": {"used": 937, "available": 5280},
        },
    }
}


def test_logic_card_answers_fits_cells_and_fmax(tmp_path: Path) -> None:
    (tmp_path / "synth.json").write_text(json.dumps(PNR))
    h = answer(tmp_path, "wirelab logic train", logic_metrics(acc=0.9991, gates=500))
    assert h.outcome == "yes"
    assert h.answer == (
        "99.91% test accuracy with 500 gates; fits: 937 of 5,280 cells, Fmax 18.3 MHz (12 MHz met)"
    )
    assert h.verdict.endswith("fits the UP5K: 937 of 5,280 cells, Fmax 18.3 MHz (12 MHz met).")
    missed = {**PNR["ice40-up5k"], "fits": False}
    (tmp_path / "synth.json").write_text(json.dumps({"ice40-up5k": missed}))
    h = answer(tmp_path, "wirelab logic train", logic_metrics(acc=0.9991, gates=500))
    assert h.outcome == "no" and "does not fit: 937 of 5,280 cells" in h.answer


def test_resolution_keeps_the_run_and_states_the_command() -> None:
    h = Headline("Q?", "this run's answer", "its CI", "Open: the CI includes 0.", "unresolved")
    r = Resolution("wirelab x --big", "an effect of 3 [2, 4]", "yes", "docs/figures/x.png")
    s = r.settle(h, h.verdict)
    assert (s.answer, s.uncertainty, s.outcome) == ("this run's answer", "its CI", "yes")
    assert s.verdict == (
        "Yes, resolved by `wirelab x --big`, which found an effect of 3 [2, 4] "
        "(docs/figures/x.png). This run alone does not decide it: Open: the CI includes 0."
    )
    assert h.outcome == "unresolved"  # the run's own headline is left as it was
    with pytest.raises(ValueError, match="yes or no"):
        Resolution("c", "f", "unresolved", "s")
