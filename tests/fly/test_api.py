"""The Python API of `wirelab.fly`: open a body, step it with a drive, read its state; run the
connectome controller in a loop of one's own, with the numbers of ``wirelab fly stimulate``."""

from __future__ import annotations

import numpy as np
import pytest

import wirelab.fly as fly
from wirelab.data.connectomes import SIDES
from wirelab.errors import UsageError
from wirelab.fly import ConnectomeController, ControllerConfig, Observation, open_body
from wirelab.fly.bodies.base import flygym2_here
from wirelab.fly.stimulation.cli import stimulate_cmd
from wirelab.fly.stimulation.stimulate import STIMULI, StimulateConfig, stimulate
from wirelab.fly.turns.study import TurnsConfig


def test_every_public_name_is_documented() -> None:
    undocumented = [n for n in fly.__all__ if not (getattr(fly, n).__doc__ or "").strip()]
    assert undocumented == []


def test_open_body_steps_a_drive_and_closes() -> None:
    closed: list[bool] = []
    with open_body("kinematic", seed=1) as body:
        body.close = lambda: closed.append(True)  # type: ignore[method-assign]
        obs = body.reset()
        assert isinstance(obs, Observation) and obs.time == 0.0
        for _ in range(200):
            obs = body.act(np.array([1.2, 0.6]))
    assert closed == [True]
    assert obs.time == pytest.approx(0.2)
    assert obs.position.shape == (2,) and float(obs.heading) < 0  # larger left drive: clockwise


def test_unknown_body_and_flygym_outside_its_environment_are_one_line_errors() -> None:
    with pytest.raises(UsageError, match="kinematic"), open_body("no-such-body"):
        pass
    if flygym2_here():
        pytest.skip("this interpreter is the fly environment")
    with pytest.raises(UsageError, match=r"\.venv-fly/bin/python") as exc:
        fly.make_body("flygym")
    assert "\n" not in str(exc.value)


def own_loop(side: str, seconds: float) -> tuple[float, np.ndarray]:
    """The package quickstart's loop: heading change (deg) and the last drive."""
    controller = ConnectomeController.from_connectome("larva")
    with open_body("kinematic") as body:
        obs = body.reset()
        start = float(obs.heading)
        drive = np.zeros(2)
        for _ in range(round(seconds / (2 * body.dt))):
            drive = controller.step(STIMULI[side])
            for _ in range(controller.steps_per_update(body.dt)):
                obs = body.act(drive)
    return float(np.degrees(float(obs.heading) - start)), drive


@pytest.mark.parametrize("side", ["left", "right"])
def test_own_loop_equals_the_stimulate_experiment(side: str) -> None:
    turn, drive = own_loop(side, 0.5)
    cfg = StimulateConfig(side=side)
    con = fly.controller.cached_connectome(cfg.connectome)
    run = stimulate(con, side, cfg.controller, cfg.mapping, "kinematic", 0.5)
    assert turn == pytest.approx(run.metrics["heading_change_deg"], abs=1e-9)
    assert abs(turn) > 5  # one-sided stimulation turns the fly
    assert drive.shape == (2,)


def test_step_batches_flies_and_checks_its_input() -> None:
    ctrl = ConnectomeController.from_connectome("larva", flies=3)
    assert ctrl.batch == 3 * ctrl.mapping.networks_per_fly
    u = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    drive = ctrl.step(u)
    assert drive.shape == (3, 2)
    assert drive[0, 0] - drive[0, 1] == pytest.approx(-(drive[1, 0] - drive[1, 1]), abs=1e-6)
    assert np.allclose(drive[2], ctrl.mapping.offset)  # no input: the resting drive
    with pytest.raises(UsageError, match="built for 3"):
        ctrl.step([1.0, 0.0])
    with pytest.raises(UsageError, match="left, right"):
        ctrl.step([1.0, 0.0, 0.0])


def test_one_set_of_defaults() -> None:
    """The controller's default mapping is the experiments' (stimulate and turns)."""
    ctrl = ConnectomeController.from_connectome("larva")
    assert ctrl.mapping == fly.default_mapping() == StimulateConfig("left").mapping
    assert TurnsConfig().mapping == fly.default_mapping()
    assert ctrl.config == ControllerConfig() == StimulateConfig("left").controller


def test_stimulation_sides_come_from_the_connectome_sides() -> None:
    assert list(STIMULI) == [*SIDES, "both"]
    side = next(p for p in stimulate_cmd.params if p.name == "side")
    assert list(side.type.choices) == list(STIMULI)  # type: ignore[attr-defined]
    assert STIMULI["both"] == (1.0,) * len(SIDES)


def test_open_body_flygym_in_the_fly_environment(flygym2_ok: None) -> None:
    with open_body("flygym", seed=0) as body:
        obs = body.reset()
        for _ in range(100):  # 10 ms of physics
            obs = body.act([1.0, 1.0])
    assert obs.time == pytest.approx(0.01) and np.isfinite(obs.position).all()
