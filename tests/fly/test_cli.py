"""The ``wirelab fly`` commands in-process, on the kinematic body, and a toy body registered by
a test (one registry line) run through the CLI."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clirun import one_line_error, wirelab
from tests.conftest import requires_larva
from wirelab.fly.bodies import BODIES
from wirelab.fly.bodies.kinematic import KinematicBody


def fly(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return wirelab("fly", *args)


@requires_larva
def test_stimulate_left_and_right_write_metrics_for_both_normalisations(
    tmp_path: Path, larva: object
) -> None:
    metrics = {}
    for side in ("left", "right"):
        out = tmp_path / side
        r = fly("stimulate", "--side", side, "--duration", "0.2", "--out", out)
        assert r.returncode == 0, r.stderr
        assert {"config.json", "metrics.json", "trajectory.png", "dn_traces.png"} <= {
            p.name for p in out.iterdir()
        }
        metrics[side] = json.loads((out / "metrics.json").read_text())
    for m in metrics.values():
        for key in (
            "dn_left",
            "dn_right",
            "lateralization_index",
            "heading_change_deg",
            "displacement_mm",
        ):
            assert key in m and key in m["by_normalization"]["spectral"]
        assert m["displacement_mm"] > 1.0
        # row normalisation lets far more DN activity through than spectral scaling
        row, spec = m["by_normalization"]["row"], m["by_normalization"]["spectral"]
        assert row["dn_left"] + row["dn_right"] > 5 * (spec["dn_left"] + spec["dn_right"])
    # the evoked ipsilateral mapping turns away from the side whose DN-VNC the stimulus raises,
    # and left and right stimulation turn the fly in opposite directions
    for m in metrics.values():
        sign = -1 if m["evoked_left"] > m["evoked_right"] else 1
        assert sign * m["heading_change_deg"] > 0
    assert metrics["left"]["heading_change_deg"] * metrics["right"]["heading_change_deg"] < 0
    # a finished run is not overwritten unless asked
    again = ("stimulate", "--side", "left", "--duration", "0.2", "--out", tmp_path / "left")
    assert fly(*again).returncode == 2
    assert fly(*again, "--overwrite", "--no-compare").returncode == 0


def test_bad_arguments_exit_2_with_one_line(tmp_path: Path) -> None:
    out = tmp_path / "x"
    r = fly("stimulate", "--side", "up", "--out", out)
    assert r.returncode == 2 and one_line_error(r)
    r = fly("stimulate", "--side", "left", "--video", "v.mp4", "--out", out)
    assert r.returncode == 2 and "flygym" in r.stderr and one_line_error(r)
    r = fly("lateralization", "--gains", "a,b", "--out", out)
    assert r.returncode == 2 and one_line_error(r)
    for args in (
        ("stimulate", "--side", "left", "--duration", "nan"),
        ("stimulate", "--side", "left", "--gain", "inf"),
        ("taxis", "--time-limit", "nan"),
        ("taxis", "--trials", "0"),
        ("calibrate", "--duration", "-inf"),
        ("turns", "--duration", "nan"),
        ("turns", "--gain", "inf"),
        ("turns", "--settle", "-1"),
        ("taxis", "--timestep", "nan"),
        ("taxis", "--arena-radius", "10"),  # inside the start distances
        ("taxis", "--arena-radius", "inf"),
        ("calibrate", "--body", "kinematic"),  # not a NeuroMechFly: nothing to calibrate
        ("timestep", "--body", "kinematic"),
    ):
        r = fly(*args, "--out", out)
        assert r.returncode == 2 and one_line_error(r), (args, r.stderr)
    assert not out.exists()


@pytest.mark.parametrize("out", ["/dev/null/run", "/proc/no-such-dir/run"])
def test_an_out_that_cannot_be_created_is_one_line(out: str) -> None:
    for args in (("stimulate", "--side", "left"), ("turns", "--body", "kinematic")):
        r = fly(*args, "--duration", "0.1", "--out", out)
        assert r.returncode in (1, 2) and one_line_error(r), r.stderr
    assert not Path(out).exists()


@requires_larva
@pytest.mark.parametrize("modality", ["sonar"])
def test_unknown_modality_is_a_usage_error(tmp_path: Path, modality: str, larva: object) -> None:
    out = tmp_path / "out"
    r = fly("stimulate", "--side", "left", "--modality", modality, "--out", out)
    assert r.returncode == 2 and "unknown modality" in r.stderr
    assert not out.exists()  # validated before the result directory


class ToyBody(KinematicBody):
    """A kinematic body that walks twice as fast: a new body is one class plus one line."""

    name = "toy"

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.v_gain *= 2


@pytest.fixture
def toy_body() -> Iterator[str]:
    BODIES.add("toy", ToyBody, "test body")
    yield "toy"
    BODIES.remove("toy")


@requires_larva
def test_a_registered_toy_body_runs_through_the_cli(
    tmp_path: Path, larva: object, toy_body: str
) -> None:
    walked = {}
    for body in ("kinematic", toy_body):
        out = tmp_path / body
        args = ("--side", "left", "--duration", "0.2", "--no-compare", "--out", out)
        r = fly("stimulate", "--body", body, *args)
        assert r.returncode == 0, r.stderr
        m = json.loads((out / "metrics.json").read_text())
        assert m["body"] == body
        walked[body] = m["displacement_mm"]
    assert walked[toy_body] == pytest.approx(2 * walked["kinematic"], rel=1e-6)


@requires_larva
def test_lateralization_and_taxis_write_their_result_dirs(tmp_path: Path, larva: object) -> None:
    out = tmp_path / "lat"
    r = fly(
        "lateralization",
        *("--modalities", "olfactory", "--gains", "1", "--nulls", "1", "--boot", "3"),
        *("--steps", "4", "--normalize", "row", "--out", out),
    )
    assert r.returncode == 0, r.stderr
    m = json.loads((out / "metrics.json").read_text())
    assert [s["modality"] for s in m["summary"]] == ["olfactory"]
    assert (out / "lateralization_row.png").is_file()
    out = tmp_path / "taxis"
    r = fly(
        "taxis",
        *("--trials", "2", "--train-trials", "2", "--nulls", "0", "--no-mirror"),
        *("--time-limit", "0.3", "--update-steps", "100", "--out", out),
    )
    assert r.returncode == 0, r.stderr
    m = json.loads((out / "metrics.json").read_text())
    assert [c["condition"] for c in m["conditions"]] == [
        "teacher",
        "constant",
        "random",
        "connectome",
        "input-only",
    ]
    assert {"success_rate.png", "trajectories.png"} <= {p.name for p in out.iterdir()}
    r = fly("taxis", "--video", tmp_path / "v.mp4", "--out", tmp_path / "taxis-video")
    assert r.returncode == 2 and "flygym" in r.stderr and one_line_error(r)
