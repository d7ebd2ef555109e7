"""The ``wirelab fly`` commands through a subprocess, on the kinematic body."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import requires_larva


def wirelab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wirelab.cli", "fly", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


@requires_larva
def test_stimulate_left_and_right_write_metrics_for_both_normalisations(
    tmp_path: Path, larva: object
) -> None:
    metrics = {}
    for side in ("left", "right"):
        out = tmp_path / side
        r = wirelab("stimulate", "--side", side, "--duration", "0.2", "--out", str(out))
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
    # the ipsilateral fixed mapping turns away from the more active DN side
    for m in metrics.values():
        sign = -1 if m["dn_left"] > m["dn_right"] else 1
        assert sign * m["heading_change_deg"] > 0


def test_bad_arguments_exit_2_with_one_line() -> None:
    r = wirelab("stimulate", "--side", "up", "--out", "/tmp/x")
    assert r.returncode == 2
    r = wirelab("stimulate", "--side", "left", "--video", "v.mp4", "--out", "/tmp/x")
    assert r.returncode == 2 and "flygym" in r.stderr
    r = wirelab("lateralization", "--gains", "a,b", "--out", "/tmp/x")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


@requires_larva
@pytest.mark.parametrize("modality", ["sonar"])
def test_unknown_modality_is_a_usage_error(tmp_path: Path, modality: str, larva: object) -> None:
    r = wirelab("stimulate", "--side", "left", "--modality", modality, "--out", str(tmp_path))
    assert r.returncode == 2 and "unknown modality" in r.stderr
