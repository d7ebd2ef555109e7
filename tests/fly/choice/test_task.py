"""The choice task: geometry of the starts, cues, scoring (ends, success, contact, efficiency)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.errors import UsageError
from wirelab.fly.choice.task import (
    ChoiceConfig,
    Starts,
    cues,
    encode,
    evaluate,
    starts,
    summarize,
    teacher_turn,
)

CFG = ChoiceConfig()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 60), seed=st.integers(0, 2**31))
def test_starts_put_the_sources_on_opposite_sides_at_one_distance(n: int, seed: int) -> None:
    s = starts(CFG, n, seed)
    fwd = np.stack([np.cos(s.heading), np.sin(s.heading)], axis=-1)

    def side_of(src: np.ndarray) -> np.ndarray:  # +1: on the fly's left (CCW), -1: right
        d = src - s.xy
        return np.sign(fwd[:, 0] * d[:, 1] - fwd[:, 1] * d[:, 0])

    assert np.array_equal(side_of(s.attractive), s.side)
    assert np.array_equal(side_of(s.aversive), -s.side)
    d_att = np.linalg.norm(s.attractive - s.xy, axis=-1)
    np.testing.assert_allclose(d_att, np.linalg.norm(s.aversive - s.xy, axis=-1))
    assert np.all((d_att >= 15.0) & (d_att <= 25.0))
    assert abs(int(s.side.sum())) <= 1  # balanced sides


def _one(att: tuple[float, float], av: tuple[float, float]) -> Starts:
    return Starts(
        xy=np.zeros((1, 2)),
        heading=np.zeros(1),
        attractive=np.array([att]),
        aversive=np.array([av]),
        side=np.ones(1),
    )


def _line(points: list[tuple[float, float]], step: float = 0.05) -> np.ndarray:
    """Positions ``(S+1, 1, 2)`` walking straight through ``points`` in steps of ``step`` mm."""
    out = [np.array(points[0], dtype=float)]
    for p, q in itertools.pairwise(points):
        a, b = np.array(p, float), np.array(q, float)
        n = int(np.ceil(np.linalg.norm(b - a) / step))
        out += [a + (b - a) * k / n for k in range(1, n + 1)]
    return np.stack(out)[:, None, :]


def test_walking_straight_to_the_attractive_source_succeeds_efficiently() -> None:
    st_ = _one((20.0, 0.0), (0.0, 20.0))
    r = evaluate(_line([(0, 0), (25, 0)]), st_, CFG, dt_u=0.01)
    assert r["success"] == [True] and r["contact"] == [False] and r["left_arena"] == [False]
    assert r["path_efficiency"][0] == pytest.approx(1.0, abs=0.01)
    assert r["time_to_goal_s"][0] == pytest.approx(18.0 / 0.05 * 0.01, abs=0.02)
    assert r["closest_aversive_mm"][0] == pytest.approx(20.0)  # at the start, never closer


def test_a_detour_halves_the_efficiency() -> None:
    st_ = _one((20.0, 0.0), (-20.0, 0.0))
    path = _line([(0, 0), (0, 9), (0, 0), (20, 0)])  # 9 mm out and back, then 18 mm
    r = evaluate(path, st_, CFG, dt_u=0.01)
    assert r["success"] == [True]
    assert r["path_efficiency"][0] == pytest.approx(18.0 / 36.0, abs=0.01)


def test_contact_with_the_aversive_source_ends_the_trial_as_a_failure() -> None:
    st_ = _one((20.0, 0.0), (0.0, 20.0))
    r = evaluate(_line([(0, 0), (0, 20), (20, 0)]), st_, CFG, dt_u=0.01)
    assert r["contact"] == [True] and r["success"] == [False]
    assert r["closest_aversive_mm"][0] <= CFG.contact_radius
    assert r["time_to_goal_s"] == [None] and r["path_efficiency"] == [None]


def test_leaving_the_arena_and_timing_out_fail() -> None:
    st_ = _one((20.0, 0.0), (0.0, 20.0))
    gone = evaluate(_line([(0, 0), (0, -60)]), st_, CFG, dt_u=0.01)
    assert gone["left_arena"] == [True] and gone["success"] == [False]
    stay = evaluate(_line([(0, 0), (-5, 0)]), st_, CFG, dt_u=0.01)
    assert stay == {**stay, "success": [False], "contact": [False], "left_arena": [False]}
    s = summarize(stay)
    assert s["success_rate"] == 0.0 and s["success_ci"][0] == 0.0 and s["time_to_goal_s"] is None


def test_cues_keep_each_source_in_its_channel_and_side() -> None:
    st_ = _one((0.0, 10.0), (0.0, -30.0))  # attractive to the left of a fly facing +x
    c = cues(st_, np.zeros((1, 2)), np.zeros(1), forward=1.0, lateral=0.1, h=1.0)
    assert c[0, 0] > c[0, 1]  # attractive: left antenna closer
    assert c[0, 3] > c[0, 2]  # aversive: right antenna closer
    assert c[0, :2].mean() > c[0, 2:].mean()  # the nearer source smells stronger
    assert teacher_turn(CFG, c)[0] > 0  # toward the attractive side and away from the other
    for enc in ("log", "adapted"):
        u = encode(ChoiceConfig(encoding=enc), c)
        assert u.shape == (1, 4) and u[0, 0] > u[0, 1] and u[0, 3] > u[0, 2]


def test_bad_choice_configs_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        ChoiceConfig(contact_radius=20.0)
    with pytest.raises(UsageError):
        ChoiceConfig(half_angle_deg=(1.0, 2.0))  # sources closer than the two radii
    with pytest.raises(UsageError):
        ChoiceConfig(encoding="linear")
