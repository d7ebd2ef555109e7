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
