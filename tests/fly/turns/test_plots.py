"""The turn study's figures with many nulls: the per-model plot keeps the other models, the
nulls go to one histogram per family."""

from __future__ import annotations

from typing import Any

from wirelab.fly.turns.video import PLOTTED_NULLS, null_plot, turn_plot


def _table(nulls: int) -> list[dict[str, Any]]:
    ci = {"mean": 1.0, "ci": [0.0, 2.0]}
    models = ["row", *(f"null-{i}" for i in range(nulls))]
    return [
        {"model": m, "condition": c, "minus_control": ci} for m in models for c in ("left", "right")
    ]


def _ticks(fig: Any) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_xticklabels()]


def test_a_few_nulls_are_plotted_beside_the_model_many_are_not() -> None:
    assert _ticks(turn_plot(_table(PLOTTED_NULLS))) == ["row", *(f"null-{i}" for i in range(8))]
    assert _ticks(turn_plot(_table(PLOTTED_NULLS + 1))) == ["row"]


def test_the_null_histogram_has_one_panel_per_family_titled_with_its_p() -> None:
    fam = {"n_nulls": 3, "p": 0.25, "nulls_lr": [1.0, -2.0, 3.0], "observed_lr": -5.0}
    nulls = {
        "model": "row",
        "families": {f: {**fam, "family": f} for f in ("degree", "degree-boundary")},
    }
    fig = null_plot(nulls)
    assert [a.get_title() for a in fig.axes] == [
        "3 degree nulls: p = 0.25",
        "3 degree-boundary nulls: p = 0.25",
    ]
