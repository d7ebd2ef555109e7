"""The kinematic body: geometry, calibration sign conventions, batching, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.errors import UsageError
from wirelab.fly.bodies import make_body
from wirelab.fly.bodies.base import DRIVE_RANGE, Observation
from wirelab.fly.bodies.kinematic import KinematicBody
from wirelab.fly.odor import OdorSource, antenna_positions

CAL = {"v_gain": 10.0, "w_gain": 2.0, "tau": 0.05, "antenna_forward": 1.0, "antenna_lateral": 0.2}


def walk(body: KinematicBody, signal: np.ndarray, seconds: float) -> Observation:
    obs = body.reset()
    for _ in range(round(seconds / body.dt)):
        obs = body.act(signal)
    return obs


def test_equal_drive_walks_straight_at_calibrated_speed() -> None:
    body = KinematicBody(dt=1e-3, calibration=CAL)
    obs = walk(body, np.array([1.0, 1.0]), 2.0)
    # after the CPG lag (tau = 50 ms) the speed is v_gain * 1 = 10 mm/s along +x
    assert obs.heading == pytest.approx(0.0)
    assert obs.position[1] == pytest.approx(0.0)
    assert obs.position[0] == pytest.approx(10.0 * (2.0 - 0.05), rel=0.02)


def test_larger_left_drive_turns_clockwise_like_flygym() -> None:
    body = KinematicBody(dt=1e-3, calibration=CAL)
    right_turn = walk(body, np.array([1.2, 0.4]), 1.0)
    left_turn = walk(body, np.array([0.4, 1.2]), 1.0)
    assert right_turn.heading < 0 < left_turn.heading
    assert left_turn.heading == pytest.approx(-right_turn.heading)
    # yaw rate w_gain * (R - L) = 2 * 0.8 = 1.6 rad/s once settled
    assert left_turn.heading == pytest.approx(1.6 * (1.0 - 0.05), rel=0.03)


def test_turning_circle_radius_matches_v_over_omega() -> None:
    body = KinematicBody(dt=1e-3, calibration={**CAL, "tau": 1e-3})  # no lag
    obs = walk(body, np.array([0.6, 1.0]), 2 * np.pi / (2.0 * 0.4))  # one full circle
    assert np.linalg.norm(obs.position) < 0.05  # back at the start
    assert obs.heading == pytest.approx(2 * np.pi, rel=1e-3)


@given(
    left=st.floats(-2, 3),
    right=st.floats(-2, 3),
    h0=st.floats(-np.pi, np.pi),
)
@settings(max_examples=40, deadline=None)
def test_mirror_symmetry_and_clipping(left: float, right: float, h0: float) -> None:
    a = KinematicBody(dt=1e-2, start_heading=h0, calibration=CAL)
    b = KinematicBody(dt=1e-2, start_heading=h0, calibration=CAL)
    oa = walk(a, np.array([left, right]), 0.3)
    ob = walk(b, np.array([right, left]), 0.3)
    # swapping the sides mirrors the turn
    assert oa.heading - h0 == pytest.approx(-(ob.heading - h0), abs=1e-9)
    # drives are clipped to flygym's action space
    lo, hi = DRIVE_RANGE
    assert np.all((a.drive >= lo - 1e-12) & (a.drive <= hi + 1e-12))


def test_batch_equals_single_flies() -> None:
    sig = np.array([[1.0, 1.0], [1.2, 0.4], [0.4, 1.2]])
    batch = KinematicBody(batch=3, start_heading=np.array([0.0, 1.0, -2.0]), calibration=CAL)
    obs = walk(batch, sig, 0.5)
    for i, h0 in enumerate([0.0, 1.0, -2.0]):
        single = walk(KinematicBody(start_heading=h0, calibration=CAL), sig[i], 0.5)
        np.testing.assert_allclose(obs.position[i], single.position, atol=1e-12)
        assert obs.heading[i] == pytest.approx(float(single.heading))


def test_heading_noise_is_seeded() -> None:
    a = walk(KinematicBody(heading_noise=0.5, seed=3, calibration=CAL), np.ones(2), 0.5)
    b = walk(KinematicBody(heading_noise=0.5, seed=3, calibration=CAL), np.ones(2), 0.5)
    c = walk(KinematicBody(heading_noise=0.5, seed=4, calibration=CAL), np.ones(2), 0.5)
    assert a.heading == b.heading != c.heading


def test_odor_is_stronger_on_the_side_facing_the_source() -> None:
    src = OdorSource((0.0, 10.0), height=1.0)
    body = KinematicBody(odor=src, calibration=CAL)  # faces +x, source on its left
    obs = body.reset()
    assert obs.odor is not None and obs.odor[0] > obs.odor[1]
    ant = antenna_positions(np.zeros(2), np.array(0.0), 1.0, 0.2)
    np.testing.assert_allclose(ant, [[1.0, 0.2], [1.0, -0.2]])
    assert src.intensity(np.array([0.0, 10.0])) == pytest.approx(1.0)  # 1 / height^2


def test_bad_input_is_a_usage_error() -> None:
    body = KinematicBody(calibration=CAL)
    with pytest.raises(UsageError, match="shape"):
        body.act(np.ones(3))
    with pytest.raises(UsageError, match="NaN"):
        body.act(np.array([np.nan, 1.0]))
    with pytest.raises(UsageError):
        KinematicBody(dt=0)
    with pytest.raises(UsageError, match="unknown fly body"):
        make_body("robot")


def test_stored_calibration_turns_the_same_way_as_flygym() -> None:
    from wirelab.fly.bodies.calibration import load_calibration

    cal = load_calibration()
    assert cal["kinematic"]["v_gain"] > 0 and cal["kinematic"]["w_gain"] > 0
    runs = cal["measurement"]["runs"]
    # every measured flygym run with L > R turned clockwise (negative yaw) and vice versa
    for r in runs:
        if abs(r["left"] - r["right"]) >= 0.4:
            assert np.sign(r["omega"]) == np.sign(r["right"] - r["left"])


def test_kinematic_body_reproduces_the_stored_flygym_runs() -> None:
    """Same signal, same window: the calibrated body turns like flygym, within 25% (or 10 deg)."""
    from wirelab.fly.bodies.calibration import load_calibration

    meas = load_calibration()["measurement"]
    window = meas["duration_s"] - meas["settle_s"]
    for r in meas["runs"]:
        body = KinematicBody(dt=1e-3)
        sig = np.array([r["left"], r["right"]])
        walk(body, sig, 1.0)  # settled CPG amplitudes, as after flygym's settle time
        h0, p0 = float(body.heading), body.position.copy()
        for _ in range(round(window / body.dt)):
            obs = body.act(sig)
        turn = np.degrees(float(obs.heading) - h0)
        assert abs(turn - r["heading_change_deg"]) <= max(10.0, 0.25 * abs(r["heading_change_deg"]))
        speed = body.velocities()[0]
        assert speed == pytest.approx(r["v"], rel=0.25)
        assert np.linalg.norm(obs.position - p0) > 0
