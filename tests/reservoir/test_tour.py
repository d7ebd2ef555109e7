"""The tour's reservoir step asks the registry's headline question with enough nulls that p can
reach 0.05."""

from __future__ import annotations

from wirelab.reservoir import tour
from wirelab.reservoir.tasks import TASKS


def test_the_question_is_the_first_headline_task() -> None:
    task = tour.headline_task()
    assert TASKS.get(task).metrics[0].headline
    earlier = TASKS.names()[: TASKS.names().index(task)]
    assert not any(TASKS.get(t).metrics[0].headline for t in earlier)


def test_enough_nulls_for_p_005() -> None:
    assert 1 / (tour.NULLS + 1) <= 0.05


def test_both_null_families_are_registered_and_compared() -> None:
    from wirelab.reservoir.nulls import NULLS

    assert tour.NULL_MODELS == ["degree", "degree-boundary"]
    assert all(kind in NULLS for kind in tour.NULL_MODELS)
