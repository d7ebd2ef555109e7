"""Annealed relaxations: input ramp and connection temperature schedules."""

from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.clirun import one_line_error, wirelab
from tests.logic.killed import run_until_checkpoint
from wirelab.logic.anneal import connection_tau, ramp_width, set_progress
from wirelab.logic.layers import Binarize
from wirelab.logic.learned import LearnedLogicDense
from wirelab.logic.model import LogicNet
from wirelab.logic.training import TrainConfig, checkpoint_config, run


@settings(max_examples=50, deadline=None)
@given(
    thr=st.floats(0.05, 0.95),
    w=st.floats(0.01, 1.0),
    xs=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20),
)
def test_a_steeper_ramp_keeps_the_bit_and_stays_in_range(thr, w, xs):
    b = Binarize.fixed(len(xs), thr)
    x = torch.tensor([xs], dtype=torch.float32)
    wide = b.relaxed(x)
    b.ramp_width = w
    steep = b.relaxed(x)
    assert torch.equal(steep > 0.5, b(x) > 0.5)  # the discrete network reads the same bits
    assert torch.all((steep >= 0) & (steep <= 1))
    assert torch.all((steep - 0.5).abs() >= (wide - 0.5).abs() - 1e-6)  # never less decided


def test_the_ramp_width_one_is_difflogics_real_pixel_and_a_narrow_one_the_bit():
    b = Binarize.fixed(5, 0.5)
    x = torch.tensor([[0.0, 0.2, 0.49, 0.51, 0.9]])
    assert torch.allclose(b.relaxed(x), x)
    b.ramp_width = 0.01
    assert torch.equal(b.relaxed(x), torch.tensor([[0.0, 0.0, 0.0, 1.0, 1.0]]))


def test_schedules_run_from_the_start_value_to_the_end_value():
    assert connection_tau(1.0, 0.1, 0.0) == 1.0
    assert connection_tau(1.0, 0.1, 1.0) == pytest.approx(0.1)
    assert connection_tau(1.0, 0.1, 0.5) == pytest.approx(0.1**0.5)  # geometric
    assert connection_tau(2.0, None, 0.7) == 2.0
    assert ramp_width(0.2, 0.0) == 1.0 and ramp_width(0.2, 1.0) == pytest.approx(0.2)
    assert ramp_width(0.2, 0.5) == pytest.approx(0.6)  # linear
    assert ramp_width(None, 0.9) == 1.0


def test_set_progress_reaches_every_learned_layer_and_the_input():
    spec = {
        "input_shape": [4, 4],
        "dense": [20, 10],
        "connections": "learned",
        "candidates": 4,
        "connection_tau": 2.0,
        "classes": 2,
        "inputs": "real",
    }
    net = LogicNet(spec)
    set_progress(net, 5, 10, connection_tau_end=0.5, input_ramp_end=0.1, connection_tau_start=2.0)
    learned = [m for m in net.modules() if isinstance(m, LearnedLogicDense)]
    assert len(learned) == 2 and all(m.connection_tau == pytest.approx(1.0) for m in learned)
    assert net.binarize.ramp_width == pytest.approx(0.55)


ANNEALED = {
    "dataset": "digits",
    "classes": "all",
    "steps": 60,
    "eval_every": 20,
    "batch_size": 32,
    "lr": 0.05,
    "patience": 0,
    "threads": 1,
    "seed": 2,
    "connection_tau_end": 0.1,
    "input_ramp_end": 0.05,
    "augment_shift": 1,  # shifted, turned and distorted training batches resume identically too
    "augment_rotate": 10.0,
    "augment_elastic": 20.0,
    "augment_elastic_sigma": 3.0,
    "model": {
        "dense": [200, 200],
        "tau": 3.0,
        "inputs": "real",
        "connections": "learned",
        "candidates": 4,
    },
}


def test_an_annealed_run_resumes_bit_identically(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("sklearn")
    whole = run(TrainConfig(**ANNEALED), tmp_path / "whole", quiet=True)
    out = tmp_path / "killed"
    run_until_checkpoint(monkeypatch, TrainConfig(**ANNEALED), out)
    resumed = run(checkpoint_config(out), out, resume=True, quiet=True)
    for key in ("accuracy_soft", "accuracy_discrete", "best_step"):
        assert resumed[key] == whole[key], key
    assert [h["loss"] for h in resumed["history"]] == [h["loss"] for h in whole["history"]]


@pytest.mark.parametrize(
    "opt,value",
    [
        ("--input-ramp-end", "0"),
        ("--input-ramp-end", "1.5"),
        ("--connection-tau-end", "-1"),
        ("--augment-shift", "9"),
    ],
)
def test_bad_anneal_values_are_usage_errors(tmp_path: Path, opt: str, value: str) -> None:
    r = wirelab("logic", "train", "--dataset", "digits", opt, value, "--out", tmp_path / "r")
    assert r.returncode == 2
    assert one_line_error(r)
    assert not (tmp_path / "r").exists()
