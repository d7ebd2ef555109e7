"""Top-K connectivity: a rewire leaves exactly the top K wires of every gate input selected, keeps
every logit, resets the moments of the swapped slots only; the hard forward is the discrete
network; a killed Top-K + Gumbel run resumes bit-identically."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.logic.killed import run_until_checkpoint
from wirelab.logic.model import LogicNet
from wirelab.logic.topk import TopKLogicDense, rewire_model
from wirelab.logic.training import TrainConfig


def _perturb(layer: TopKLogicDense, gen: torch.Generator, scale: float) -> None:
    with torch.no_grad():
        layer.conn_a.add_(scale * torch.randn(layer.conn_a.shape, generator=gen))
        layer.conn_b.add_(scale * torch.randn(layer.conn_b.shape, generator=gen))


@settings(max_examples=30, deadline=None)
@given(
    n_in=st.integers(4, 60),
    n_out=st.integers(1, 20),
    k=st.integers(1, 8),
    seed=st.integers(0, 2**31 - 1),
    rounds=st.integers(1, 4),
)
def test_rewire_selects_exactly_the_top_k_and_keeps_every_logit(n_in, n_out, k, seed, rounds):
    layer = TopKLogicDense(n_in, n_out, k, seed=seed % 1000)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(rounds):
        _perturb(layer, gen, 0.01)
        before = (layer.cand_a.clone(), layer.cand_b.clone())
        logits = {}
        for cand, conn, full in (
            (layer.cand_a, layer.conn_a, layer.full_a),
            (layer.cand_b, layer.conn_b, layer.full_b),
        ):
            f = full.clone().scatter_(1, cand, conn.detach())
            logits[id(full)] = f
        changed = layer.rewire()
        for old, cand, mask in zip(before, (layer.cand_a, layer.cand_b), changed, strict=True):
            assert torch.equal(old != cand, mask)
        # b is re-selected after a: b holds the top K of the wires a does not hold, a the top K
        # of those b held neither before nor after (a wire b lets go of waits for the next one)
        released_b = before[1]
        for cand, conn, full, other in (
            (layer.cand_a, layer.conn_a, layer.full_a, torch.cat([layer.cand_b, released_b], 1)),
            (layer.cand_b, layer.conn_b, layer.full_b, layer.cand_a),
        ):
            assert torch.equal(full, logits[id(full)])  # no logit changed by a rewire
            assert torch.equal(full.gather(1, cand), conn.detach())
            outside = full.scatter(1, torch.cat([cand, other], 1), float("-inf"))
            assert bool((conn.detach().min(1).values >= outside.max(1).values).all())
        both = torch.cat([layer.cand_a, layer.cand_b], 1)
        assert all(len(set(row)) == both.shape[1] for row in both.tolist())


def test_rewire_model_zeroes_the_moments_of_swapped_slots_only():
    torch.manual_seed(0)
    net = LogicNet(
        {
            "input_shape": [6, 6],
            "dense": [30, 20],
            "connections": "topk",
            "candidates": 3,
            "classes": 2,
            "rewire_every": 2,
        }
    )
    opt = torch.optim.AdamW(net.parameters(), lr=0.3)
    x, y = torch.rand(16, 6, 6), torch.randint(0, 2, (16,))
    torch.nn.functional.cross_entropy(net(x), y).backward()
    opt.step()
    layer = net.layers[0]
    before = layer.cand_a.clone()
    m_before = opt.state[layer.conn_a]["exp_avg"].clone()
    assert rewire_model(net, opt, 1) == 0  # 2 does not divide 1
    swapped = rewire_model(net, opt, 2)
    assert swapped > 0
    mask = layer.cand_a != before
    m = opt.state[layer.conn_a]["exp_avg"]
    assert bool((m[mask] == 0).all())
    assert torch.equal(m[~mask], m_before[~mask])


@pytest.mark.parametrize("gate_param", ["softmax", "light"])
def test_discretized_topk_net_equals_the_hard_forward(gate_param):
    torch.manual_seed(0)
    spec = {
        "input_shape": [28, 28],
        "dense": [60, 40],
        "classes": 10,
        "crop": 20,
        "connections": "topk",
        "candidates": 5,
        "gate_param": gate_param,
        "inputs": "real",
    }
    net = LogicNet(spec)
    opt = torch.optim.AdamW(net.parameters(), lr=0.5)
    x, y = torch.rand(33, 28, 28), torch.randint(0, 10, (33,))
    for step in range(1, 6):  # a few Gumbel steps and rewires move wires off their start
        torch.nn.functional.cross_entropy(net(x, "gumbel"), y).backward()
        opt.step()
        opt.zero_grad()
        for layer in net.layers:
            layer.rewire_every = 1
        rewire_model(net, opt, step)
    disc = net.discretize()
    flat = x.numpy().reshape(33, -1)
    np.testing.assert_allclose(net(x, "hard").detach().numpy(), disc.scores(flat))
    np.testing.assert_array_equal(net(x, "hard").argmax(1).numpy(), disc.predict(flat))


def test_a_killed_topk_gumbel_run_resumes_identically(tmp_path, monkeypatch):
    pytest.importorskip("sklearn")
    from tests.logic.killed import train_mod

    cfg = {
        "dataset": "digits",
        "classes": "all",
        "steps": 30,
        "eval_every": 10,
        "batch_size": 32,
        "lr": 0.05,
        "patience": 0,
        "threads": 1,
        "seed": 2,
        "forward": "gumbel",
        "model": {
            "dense": [60, 60],
            "tau": 3.0,
            "connections": "topk",
            "candidates": 4,
            "rewire_every": 7,
        },
    }
    whole = train_mod.run(TrainConfig(**cfg), tmp_path / "whole", quiet=True)
    out = tmp_path / "killed"
    run_until_checkpoint(monkeypatch, TrainConfig(**cfg), out)
    resumed = train_mod.run(TrainConfig(**cfg), out, resume=True, quiet=True)
    for key in ("accuracy_soft", "accuracy_discrete", "best_step", "gates_by_type"):
        assert resumed[key] == whole[key], key
    assert [h["loss"] for h in resumed["history"]] == [h["loss"] for h in whole["history"]]
