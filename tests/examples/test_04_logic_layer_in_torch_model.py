"""examples/04_logic_layer_in_torch_model.py at its CI size: a conv front end + logic layers +
GroupSum trained on MNIST in a user's own torch loop."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import requires_mnist
from tests.examples import run_example

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "examples/04_logic_layer_in_torch_model.py"


@requires_mnist
def test_example_04_trains_logic_layers_inside_a_torch_model(tmp_path: Path) -> None:
    r = run_example(SCRIPT, "--small", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    acc = re.search(r"relaxed gates ([\d.]+), discrete gates ([\d.]+)", r.stdout)
    assert acc and float(acc[2]) > 0.6  # well above chance (0.1) after 1,000 steps
    losses = [float(v) for v in re.findall(r"^step \d+/\d+: loss ([\d.]+)", r.stdout, re.M)]
    assert len(losses) == 5 and losses[-1] < losses[0]
    m = json.loads((tmp_path / "metrics.json").read_text())
    assert m["accuracy_discrete"] == pytest.approx(float(acc[2]), abs=5e-5) and m["gates"] == 4000
    assert (tmp_path / "loss.png").stat().st_size > 5_000
