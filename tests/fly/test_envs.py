"""The environment hand-off: a fly command typed in the main environment runs its body in the fly
environment (`wirelab.fly.envs`) and writes its result directory; errors come back as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab_process
from wirelab.fly import envs

needs_fly_env = pytest.mark.skipif(
    envs.flygym2_here() or envs.fly_python() is None,
    reason="runs from the main environment with a fly environment beside it (make fly-env)",
)


def test_only_bodies_registered_for_the_fly_environment_are_handed_over() -> None:
    assert envs.body_environment("flygym") == "fly"
    assert envs.body_environment("kinematic") is None
    assert envs.body_environment(None) is None
    assert not envs.needs_fly_env("kinematic")
    assert envs.needs_fly_env("flygym") == (not envs.flygym2_here())


@needs_fly_env
def test_a_flygym_command_from_the_main_environment_writes_its_result(tmp_path: Path) -> None:
    out = tmp_path / "stim"
    r = wirelab_process(
        "fly",
        "stimulate",
        "--side",
        "left",
        "--body",
        "flygym",
        "--duration",
        "0.05",
        "--no-compare",
        "--video",
        tmp_path / "v.mp4",
        "--out",
        out,
    )
    assert r.returncode == 0, r.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    config = json.loads((out / "config.json").read_text())
    assert config["config"]["body"] == "flygym"
    assert metrics["body"] == "flygym" and (tmp_path / "v.mp4").stat().st_size > 0
    assert config["environment"]["python"].startswith("3.12")  # the fly environment ran it
    assert "stimulate" in config["argv"]  # the command typed here, not the hand-off's


@needs_fly_env
def test_an_error_in_the_fly_environment_is_one_line_here(tmp_path: Path) -> None:
    r = wirelab_process(
        "fly",
        "stimulate",
        "--side",
        "left",
        "--body",
        "flygym",
        "--duration",
        "0.05",
        "--timestep",
        "0.5",
        "--out",
        tmp_path / "bad",
    )
    assert one_line_error(r), r.stderr
    assert not (tmp_path / "bad" / "metrics.json").exists()


def test_no_fly_environment_is_one_clear_line(tmp_path: Path) -> None:
    if envs.flygym2_here():
        pytest.skip("flygym 2 is importable here: nothing to hand over")
    r = wirelab_process(
        "fly",
        "stimulate",
        "--side",
        "left",
        "--body",
        "flygym",
        "--duration",
        "0.05",
        "--out",
        tmp_path / "none",
        env={envs.PYTHON_VAR: str(tmp_path / "no-python")},
    )
    assert one_line_error(r), r.stderr
    assert "fly environment" in r.stderr
