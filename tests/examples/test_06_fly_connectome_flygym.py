"""examples/06_fly_connectome_flygym.py at its CI size: typed in the main environment, it re-runs
itself in the fly environment, walks NeuroMechFly left / control / right and films each walk."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.examples import run_example
from wirelab.fly.bodies.base import flygym2_here
from wirelab.fly.envs import fly_python

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "examples/06_fly_connectome_flygym.py"


@pytest.mark.skipif(
    not flygym2_here() and fly_python() is None,
    reason="needs the fly environment (.venv-fly, Python 3.12 + flygym 2: make fly-env)",
)
def test_example_06_walks_and_films_the_fly(tmp_path: Path) -> None:
    r = run_example(SCRIPT, "--small", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    turns = {
        m[0]: float(m[1]) for m in re.findall(r"^\s*(\w+): turn\s+([-+][\d.]+) deg", r.stdout, re.M)
    }
    assert set(turns) == {"left", "control", "right"}
    assert all(abs(t) < 90 for t in turns.values())  # 0.3 s of walking: a modest turn
    assert "stimulus minus control: left" in r.stdout
    saved = json.loads((tmp_path / "turns.json").read_text())
    assert saved["turn_deg"] == pytest.approx(turns, abs=0.06)
    for condition in turns:
        assert (tmp_path / f"{condition}.mp4").stat().st_size > 10_000
    assert (tmp_path / "headings.png").stat().st_size > 5_000
