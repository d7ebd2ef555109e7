"""Determinism: a short recipe trained twice (the second time in a fresh process with another hash
seed) gives the same discrete net, weights and history bit for bit, and a run killed after a
checkpoint and resumed ends with exactly the weights and optimiser state of an uninterrupted one.

Two recipes in seconds: the shape of ``mnist10-8k-learned`` (learned connections, CAGE, shifted
images, annealed connection temperature and input ramp, real-valued inputs, cosine lr) and the
issue-46 options (whole-input Dirac wiring, the adaptive GroupSum temperature, Gumbel noise).
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.logic.killed import run_until_checkpoint
from wirelab.logic.checkpoint import load_checkpoint
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.logic.training import TrainConfig, run

pytest.importorskip("sklearn")  # the digits dataset ships inside scikit-learn

BASE: dict[str, Any] = {
    "dataset": "digits",
    "steps": 40,
    "eval_every": 20,
    "batch_size": 32,
    "lr": 0.05,
    "lr_schedule": "cosine",
    "patience": 0,
    "threads": 1,
    "seed": 3,
}
RECIPES: dict[str, dict[str, Any]] = {
    "8k-learned-shape": {
        **BASE,
        "forward": "cage",
        "augment_shift": 1,
        "connection_tau_end": 0.1,
        "input_ramp_end": 0.05,
        "model": {
            "dense": [120, 120],
            "crop": 6,
            "inputs": "real",
            "connections": "learned",
            "candidates": 6,
            "tau": 3.0,
        },
    },
    "dirac-adaptive-gumbel": {
        **BASE,
        "forward": "gumbel",
        "lr": 0.075,
        "model": {"dense": [100, 100], "connections": "dirac", "group_tau": "adaptive"},
    },
}


def _outcome(out: Path) -> dict[str, Any]:
    """What must repeat: the discrete net, the last weights and optimiser state, the history."""
    ck = load_checkpoint(out / "checkpoint.pt")
    metrics = json.loads((out / "metrics.json").read_text())
    return {
        "net": DiscreteLogicNet.load(out / "discrete.json").to_dict(),
        "model": ck["model"],
        "optimizer": ck["optimizer"]["state"],
        "history": [{k: v for k, v in h.items() if k != "train_seconds"} for h in ck["history"]],
        "accuracy": (metrics["accuracy_soft"], metrics["accuracy_discrete"]),
    }


def _assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["net"] == b["net"]
    assert a["history"] == b["history"] and a["accuracy"] == b["accuracy"]
    assert a["model"].keys() == b["model"].keys()
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    for i, state in a["optimizer"].items():
        for k, v in state.items():
            assert torch.equal(v, b["optimizer"][i][k]), (i, k)


@pytest.mark.parametrize("name", list(RECIPES))
def test_a_short_recipe_trains_to_the_same_bits_twice(tmp_path, name):
    cfg = RECIPES[name]
    run(TrainConfig(**cfg), tmp_path / "first", quiet=True)
    code = (
        "import json, sys\n"
        "from wirelab.logic.training import TrainConfig, run\n"
        "run(TrainConfig(**json.loads(sys.argv[1])), sys.argv[2], quiet=True)\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "OMP_NUM_THREADS": "1"}
    subprocess.run(
        [sys.executable, "-c", code, json.dumps(cfg), str(tmp_path / "second")],
        check=True,
        env=env,
        timeout=300,
    )
    _assert_same(_outcome(tmp_path / "first"), _outcome(tmp_path / "second"))


@pytest.mark.parametrize("name", list(RECIPES))
def test_a_resumed_run_ends_with_the_uninterrupted_runs_weights(tmp_path, monkeypatch, name):
    cfg = TrainConfig(**RECIPES[name])
    run(cfg, tmp_path / "whole", quiet=True)
    out = tmp_path / "killed"
    run_until_checkpoint(monkeypatch, cfg, out, after=1)
    assert load_checkpoint(out / "checkpoint.pt")["step"] == 20
    run(cfg, out, resume=True, quiet=True)
    _assert_same(_outcome(tmp_path / "whole"), _outcome(out))
