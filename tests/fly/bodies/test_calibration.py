"""Calibration and timestep validation on either NeuroMechFly body: ``--body``, the antennae the
bodies report, the format of ``calibration.json``, and the hand-off to the fly environment.

The flygym 2 checks run where flygym 2 imports (the fly environment), the flygym 1.2.1 ones where
it does (the main environment); the hand-off check from the main environment with a fly
environment beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clirun import wirelab
from wirelab.errors import UsageError
from wirelab.fly import envs
from wirelab.fly.bodies.calibration import (
    CalibrateConfig,
    calibration_bodies,
    check_body,
    load_calibration,
    measure_antennae,
    run,
)
from wirelab.fly.bodies.timestep import validate_timestep
from wirelab.parallel import ExecOptions

pytestmark = pytest.mark.fly


def test_only_bodies_that_report_antennae_can_be_calibrated() -> None:
    assert {"flygym", "flygym1"} <= set(calibration_bodies())
    assert "kinematic" not in calibration_bodies()
    with pytest.raises(UsageError, match="NeuroMechFly"):
        check_body("kinematic")
    with pytest.raises(UsageError, match="NeuroMechFly"):
        validate_timestep(2e-4, body="kinematic")


def test_a_flygym2_calibration_keeps_the_format_of_calibration_json(
    flygym2_ok: None, tmp_path: Path
) -> None:
    grid = ((1.2, 0.4), (0.4, 1.2))
    cfg = CalibrateConfig(0.3, 0.1, grid, tmp_path / "cal.json")
    result = run(cfg, tmp_path / "out", progress=False)
    stored = load_calibration()
    assert result["kinematic"].keys() == stored["kinematic"].keys()
    assert stored["measurement"].keys() <= result["measurement"].keys()
    assert json.loads((tmp_path / "cal.json").read_text()) == result
    assert result["measurement"]["body"] == "flygym"
    assert "--body flygym " in result["measurement"]["command"]
    k = result["kinematic"]
    assert k["w_gain"] > 0 and k["v_gain"] > 0  # a larger right drive turns left, it walks
    assert 0.2 < k["antenna_forward"] < 1.5 and 0.02 < k["antenna_lateral"] < 0.3


def test_flygym2_antennae_sit_ahead_of_the_thorax_left_and_right(flygym2_ok: None) -> None:
    a = measure_antennae(duration=0.05)
    assert 0.2 < a["antenna_forward"] < 1.5 and 0.02 < a["antenna_lateral"] < 0.3
    assert 0.3 < a["antenna_z"] < 1.6


def test_flygym2_timestep_check_against_itself_is_exact(flygym2_ok: None) -> None:
    r = validate_timestep(
        1e-4, grid=((1.2, 0.4),), duration=0.3, settle=0.1, options=ExecOptions(workers=1)
    )
    (row,) = r["rows"]
    assert r["ok"] and r["body"] == "flygym"
    assert row["v_rel_error"] == 0 and row["omega_rel_error"] == 0
    assert row["omega_ref"] < 0 < row["v_ref"]  # a larger left drive turns clockwise


def test_flygym1_antennae_are_its_olfaction_sensors(flygym_ok: None) -> None:
    """flygym 1.2.1: its olfaction sensors sit about 1 mm ahead of the thorax (its fit gave
    1.03 mm forward, 0.085 mm lateral), twice as far as flygym 2's funiculi (0.50 mm)."""
    a = measure_antennae(duration=0.05, body="flygym1")
    assert a["antenna_forward"] == pytest.approx(1.026, abs=0.05)
    assert a["antenna_lateral"] == pytest.approx(0.085, abs=0.02)


def test_the_stored_calibration_is_flygym2s(flygym2_ok: None) -> None:
    """The kinematic body is calibrated on flygym 2, the default NeuroMechFly body: its stored
    antennae are the ones flygym 2 reports."""
    stored = load_calibration()
    assert stored["measurement"]["body"] == "flygym"
    a = measure_antennae(duration=0.05)
    k = stored["kinematic"]
    assert a["antenna_forward"] == pytest.approx(k["antenna_forward"], abs=0.05)
    assert a["antenna_lateral"] == pytest.approx(k["antenna_lateral"], abs=0.02)


@pytest.mark.skipif(
    envs.flygym2_here() or envs.fly_python() is None,
    reason="runs from the main environment with a fly environment beside it (make fly-env)",
)
def test_calibrate_typed_in_the_main_environment_runs_in_the_fly_environment(
    tmp_path: Path,
) -> None:
    out = tmp_path / "cal"
    args = ("--duration", "0.3", "--settle", "0.1", "--grid", "1.2,0.4;0.4,1.2", "--out", out)
    r = wirelab("fly", "calibrate", *args)
    assert r.returncode == 0, r.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["config"]["body"] == "flygym"
    assert config["environment"]["python"].startswith("3.12")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["kinematic"]["w_gain"] > 0
