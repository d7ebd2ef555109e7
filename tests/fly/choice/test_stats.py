"""The study's arithmetic on toy cases: rank p, z, effect size, paired comparisons."""

from __future__ import annotations

import math

import pytest

from wirelab.fly.choice.stats import against_nulls, cohens_h, paired, rank_p


def test_rank_p_counts_ties_against_the_connectome() -> None:
    assert rank_p(0.5, [0.4, 0.5, 0.6]) == pytest.approx(3 / 4)
    assert rank_p(0.9, [0.1] * 99) == pytest.approx(0.01)  # the floor of 99 nulls
    assert rank_p(0.0, [0.1] * 19) == 1.0
    assert rank_p(0.3, []) == 1.0


def test_against_nulls_toy_case() -> None:
    c = against_nulls(0.8, [0.2, 0.4, 0.6])
    assert c["p"] == pytest.approx(0.25)
    assert c["null_mean"] == pytest.approx(0.4) and c["null_sd"] == pytest.approx(0.2)
    assert c["z"] == pytest.approx(2.0) and c["difference"] == pytest.approx(0.4)
    assert c["cohens_h"] == pytest.approx(
        2 * math.asin(math.sqrt(0.8)) - 2 * math.asin(math.sqrt(0.4))
    )
    assert against_nulls(0.5, [0.5, 0.5])["z"] is None  # no spread, no z
    assert cohens_h(0.5, 0.5) == 0.0


def test_paired_comparison_counts_discordant_starts() -> None:
    r = paired([True, True, True, False, False], [True, False, False, False, True])
    assert (r["a_only"], r["b_only"], r["both"], r["neither"]) == (2, 1, 1, 1)
    assert r["difference"] == pytest.approx(0.2)
    assert r["mcnemar_p"] == pytest.approx(1.0)
    assert paired([True] * 8, [False] * 8)["mcnemar_p"] == pytest.approx(2 / 2**8)
    with pytest.raises(ValueError):
        paired([True], [True, False])


def test_outcomes_name_each_trials_first_event() -> None:
    from wirelab.fly.choice.stats import outcomes

    got = outcomes(
        [True, False, False, False], [False, True, False, False], [False, False, True, False]
    )
    assert got == ["goal", "contact", "left", "time"]
    with pytest.raises(ValueError, match="one first event"):
        outcomes([True], [True], [False])


def test_per_start_counts_same_outcomes_and_same_successes() -> None:
    from wirelab.fly.choice.stats import per_start

    kin = {
        "success": [True, True, False, False, False],
        "contact": [False, False, True, False, False],
        "left_arena": [False, False, False, True, False],
    }
    fly = {
        "success": [True, False, False, False, True],
        "contact": [False, False, False, False, False],
        "left_arena": [False, True, True, True, False],
    }
    p = per_start(kin, fly)
    assert p["kinematic"] == ["goal", "goal", "contact", "left", "time"]
    assert p["flygym"] == ["goal", "left", "left", "left", "goal"]
    # same outcome: starts 0 (goal) and 3 (left); same success also 2 (contact vs left: failed)
    assert p["same_outcome"] == 2 and p["same_success"] == 3 and p["starts"] == 5
    assert p["same_outcome_rate"] == pytest.approx(0.4)
    assert p["success"]["a_only"] == 1 and p["success"]["b_only"] == 1
    with pytest.raises(ValueError, match="same starts"):
        per_start(kin, {k: v[:4] for k, v in fly.items()})
