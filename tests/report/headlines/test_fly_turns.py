"""The turn card with nulls of several families: the family and p over its nulls for each, yes
only against every family, and a failing family the committed degree study does not settle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.report.test_story import answer
from tests.report.test_tour import TURNS, null_turns


def two_families(row: float, degree: list[float], boundary: list[float]) -> dict[str, Any]:
    """`null_turns` with ``degree`` as ``null-i`` and ``boundary`` as
    ``null-degree-boundary-i`` (seed i)."""
    m = null_turns(row, [*degree, *boundary])
    n = len(degree)
    for r in m["table"]:
        i = int(r["model"][5:]) if r["model"].startswith("null-") else -1
        if i >= n:
            r["model"] = f"null-degree-boundary-{i - n}"
    return m


def test_each_family_shows_its_p(tmp_path: Path) -> None:
    h = answer(tmp_path, TURNS, two_families(-42.2, [1.0] * 19, [2.0] * 19))
    assert h.question == (
        "Does the wiring decide which way the fly turns, against degree and degree-boundary nulls?"
    )
    assert h.outcome == "yes"
    assert h.uncertainty.startswith(
        "p = 0.05 against 19 degree nulls; the smallest p 19 nulls can give is 0.05; "
        "p = 0.05 against 19 degree-boundary nulls; the smallest p 19 nulls can give is 0.05; "
        "95% CI"
    )
    assert "19 degree nulls: L − R +1.0° to +1.0°" in h.answer
    assert "19 degree-boundary nulls: L − R +2.0° to +2.0°" in h.answer
    assert [c.who for c in h.comparisons][-2:] == [
        "19 degree nulls (L − R)",
        "19 degree-boundary nulls (L − R)",
    ]


def test_a_family_the_connectome_does_not_beat_leaves_it_open(tmp_path: Path) -> None:
    boundary = [-50.0] * 10 + [1.0] * 89  # 10 of 99 boundary nulls turn the fly as far
    h = answer(tmp_path, TURNS, two_families(-42.2, [1.0] * 99, boundary))
    assert h.outcome == "unresolved"  # as many nulls as the committed study: it does not overrule
    assert h.verdict == (
        "Opposite turns (L − R = -42.2°), but farther than every one of 99 degree rewirings "
        "(p = 0.01 ≤ 0.05); 10 of 99 degree-boundary rewirings turn the fly as far "
        "(p = 0.11 > 0.05)."
    )
    assert "p = 0.01 against 99 degree nulls" in h.uncertainty
    assert "p = 0.11 against 99 degree-boundary nulls" in h.uncertainty
    h = answer(tmp_path, TURNS, two_families(-42.2, [1.0] * 99, [1.0] * 99))
    assert h.outcome == "yes" and h.verdict == (
        "Yes: opposite turns, L − R = -42.2°, farther than every one of 99 degree rewirings "
        "(p = 0.01 ≤ 0.05) and farther than every one of 99 degree-boundary rewirings "
        "(p = 0.01 ≤ 0.05)."
    )


def test_the_card_answers_for_the_first_model_that_is_not_a_null(tmp_path: Path) -> None:
    m = two_families(-42.2, [1.0] * 19, [])
    rows = m["table"]
    nulls = [r for r in rows if r["model"].startswith("null-")]
    m["table"] = [rows[0], *nulls, *rows[1:4]]  # the connectome last
    assert m["table"][1]["model"] == "null-0"
    h = answer(tmp_path, TURNS, m)
    assert h.answer.startswith("L − R -42.2°") and h.outcome == "yes"
    assert "p = 0.05 against 19 degree nulls" in h.uncertainty
