"""A tiny choice study end to end (seconds): the command writes its result directory."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_larva


@requires_larva
def test_tiny_choice_study_writes_config_metrics_and_trajectories(tmp_path: Path) -> None:
    out = tmp_path / "choice"
    args = ["fly", "choice", "--trials", "4", "--train-trials", "4", "--time-limit", "0.5"]
    args += ["--gains", "0.8,1", "--gain", "1", "--nulls", "2", "--null-family", "weights"]
    args += ["--readout", "difference", "--response", "evoked", "--update-steps", "100"]
    args += ["--workers", "1", "--out", str(out)]
    r = wirelab(*args)
    assert r.returncode == 0, r.stderr
    m = json.loads((out / "metrics.json").read_text())
    names = [r["condition"] for r in m["conditions"]]
    controls = ["input-control", "teacher", "constant", "merged"]
    assert names == ["connectome", *controls, "null-1000", "null-1001"]
    for key in ("same_gain", "own_best_gain"):
        c = m["nulls"][key]
        assert c["n_nulls"] == 2 and c["p"] in (1 / 3, 2 / 3, 1.0)
    assert set(m["paired"]) == {"input-control", "teacher", "constant", "merged"}
    assert len(m["by_gain"]["connectome"]) == 2
    assert (out / "config.json").is_file() and (out / "trajectories.png").is_file()
    assert not {"body", "kinematic", "per_start"} & set(m)  # the flygym keys: --body flygym only
    assert not (out / "trajectories_kinematic.png").exists()


def test_gain_outside_the_grid_is_a_one_line_error(tmp_path: Path) -> None:
    args = ["fly", "choice", "--gains", "0.5,1", "--gain", "2", "--out", str(tmp_path / "x")]
    r = wirelab(*args)
    assert r.returncode == 2 and one_line_error(r) and "--gain" in r.stderr
    assert not (tmp_path / "x" / "metrics.json").exists()


@requires_larva
def test_an_unknown_sensory_class_is_a_one_line_error(tmp_path: Path) -> None:
    args = ["fly", "choice", "--aversive-class", "sonar", "--out", str(tmp_path / "x")]
    r = wirelab(*args)
    assert r.returncode == 2 and one_line_error(r) and "sonar" in r.stderr
    assert not (tmp_path / "x" / "metrics.json").exists()


def test_hostile_gains_and_time_limits_are_one_line_errors(tmp_path: Path) -> None:
    for bad in (
        ["--gains", "nan"],
        ["--gains", ","],
        ["--gains", "1,-2"],
        ["--time-limit", "1e300"],
    ):
        r = wirelab("fly", "choice", *bad, "--out", str(tmp_path / "x"))
        assert r.returncode == 2 and one_line_error(r), (bad, r.stderr)
    assert not (tmp_path / "x").exists()
