"""Learned connectivity and the light (4-parameter) gates: implementations agree, the hard
forward is the discrete network, discretisation is exact, and old checkpoints still resume."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.logic.killed import run_until_checkpoint
from wirelab.logic.config import changed_options, resolve
from wirelab.logic.functional import (
    gate_poly,
    light_gates,
    light_reference,
    light_soft_coeffs,
    nearest_gate,
    param_coeffs,
)
from wirelab.logic.gates import COEFFS, PASS_A, TRUTH
from wirelab.logic.layers import LogicDense
from wirelab.logic.learned import LearnedLogicDense, make_candidates
from wirelab.logic.model import LogicNet
from wirelab.logic.spec import ADDED_DEFAULTS
from wirelab.logic.training import TrainConfig


def test_nearest_gate_maps_every_gate_to_itself():
    c = torch.tensor(COEFFS)
    assert nearest_gate(c).tolist() == list(range(16))
    z = 4.0 * (2 * torch.tensor(TRUTH, dtype=torch.float64) - 1)  # (16, 4) light parameters
    assert light_gates(z).tolist() == list(range(16))
    assert nearest_gate(light_soft_coeffs(z)).tolist() == list(range(16))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 12), bsz=st.integers(1, 9), seed=st.integers(0, 2**31 - 1))
def test_light_form_equals_its_reference_and_rounds_to_the_nearest_gate(n, bsz, seed):
    gen = torch.Generator().manual_seed(seed)
    a = torch.rand(n, bsz, generator=gen, dtype=torch.float64, requires_grad=True)
    b = torch.rand(n, bsz, generator=gen, dtype=torch.float64, requires_grad=True)
    z = (3 * torch.randn(n, 4, generator=gen, dtype=torch.float64)).requires_grad_()
    g = torch.randn(n, bsz, generator=gen, dtype=torch.float64)
    ref = light_reference(a, b, z)
    fast = gate_poly(a, b, light_soft_coeffs(z))
    assert torch.allclose(ref, fast, atol=1e-12)
    gr = torch.autograd.grad((ref * g).sum(), [a, b, z])
    gf = torch.autograd.grad((fast * g).sum(), [a, b, z])
    for x, y in zip(gr, gf, strict=True):
        assert torch.allclose(x, y, atol=1e-10)
    assert torch.equal(light_gates(z), nearest_gate(light_soft_coeffs(z)))
    hard = param_coeffs(z, "hard")
    assert torch.equal(hard, torch.tensor(COEFFS)[light_gates(z)])
    st_c = param_coeffs(z, "st")
    assert torch.equal(st_c, hard)  # straight-through: hard forward, soft gradient
    (gs,) = torch.autograd.grad(st_c.sum(), [z])
    (gsoft,) = torch.autograd.grad(light_soft_coeffs(z).sum(), [z])
    assert torch.allclose(gs, gsoft)


def test_light_dense_layer_reference_fast_and_residual_init():
    fast = LogicDense(30, 12, seed=0, gate_param="light")
    ref = LogicDense(30, 12, seed=0, impl="reference", gate_param="light")
    assert fast.weight.shape == (12, 4)
    x = torch.rand(30, 9)
    for mode in ("soft", "hard", "st"):
        assert torch.allclose(fast(x, mode), ref(x, mode), atol=1e-6)
    res = LogicDense(16, 16, init="residual", seed=0, gate_param="light")
    assert (res.gates() == PASS_A).all()
    assert (res(x[:16], "soft") - x[:16][res.a]).abs().max() < 0.1


@pytest.mark.parametrize("n_in,n_out,k", [(40, 13, 6), (10, 300, 16), (400, 2000, 16), (3, 4, 8)])
def test_candidates_are_distinct_disjoint_and_spread(n_in, n_out, k):
    ca, cb = make_candidates(n_in, n_out, k, torch.Generator().manual_seed(0))
    k = min(k, n_in // 2)
    assert ca.shape == cb.shape == (n_out, k)
    both = torch.cat([ca, cb], 1)
    assert int(both.min()) >= 0 and int(both.max()) < n_in
    assert all(len(set(row)) == 2 * k for row in both.tolist())  # a's and b's never share a wire
    counts = np.bincount(both.reshape(-1).numpy(), minlength=n_in)
    if 2 * k * n_out >= n_in:
        assert counts.min() >= 1


@pytest.mark.parametrize("gate_param", ["softmax", "light"])
def test_learned_layer_implementations_agree(gate_param):
    layers = {
        impl: LearnedLogicDense(40, 13, 6, 0.7, seed=1, impl=impl, gate_param=gate_param)
        for impl in ("fast", "torch", "reference")
    }
    gen = torch.Generator().manual_seed(0)
    state = {
        k: torch.randn(v.shape, generator=gen) if v.is_floating_point() else v
        for k, v in layers["fast"].state_dict().items()
    }
    x0, g = torch.rand(40, 37, generator=gen), torch.randn(13, 37, generator=gen)
    out = {}
    for impl, layer in layers.items():
        layer.load_state_dict(state)
        x = x0.clone().requires_grad_()
        y = layer(x, "soft")
        grads = torch.autograd.grad((y * g).sum(), [x, layer.conn_a, layer.conn_b, layer.weight])
        out[impl] = (y, *grads)
    for impl in ("fast", "torch"):
        for got, want in zip(out[impl], out["reference"], strict=True):
            assert torch.allclose(got, want, atol=1e-5), impl
    layer = layers["fast"]
    a, b = layer.wiring()
    assert torch.equal(a, layer.cand_a[torch.arange(13), layer.conn_a.argmax(1)])
    assert bool((a != b).all())
    hard = gate_poly(x0[a], x0[b], param_coeffs(layer.weight, "hard"))
    assert torch.allclose(layer(x0, "hard"), hard, atol=1e-6)
    assert torch.allclose(layer(x0, "st"), hard, atol=1e-6)  # straight-through: hard forward


@pytest.mark.parametrize(
    "extra",
    [
        {"connections": "learned", "candidates": 8},
        {
            "connections": "learned",
            "candidates": 4,
            "gate_param": "light",
            "crop": 20,
            "inputs": "real",
            "connection_tau": 0.5,
        },
        {"gate_param": "light", "conv": [{"channels": 4, "depth": 2, "pool": True}]},
    ],
)
def test_discretized_learned_and_light_nets_equal_the_hard_forward(extra):
    torch.manual_seed(0)
    net = LogicNet({"input_shape": [28, 28], "dense": [60, 40], "classes": 10, **extra})
    with torch.no_grad():  # random gates and connections everywhere
        for p in net.parameters():
            p.normal_(0, 3)
    x = torch.rand(33, 28, 28)
    disc = net.discretize()
    np.testing.assert_allclose(net(x, "hard").numpy(), disc.scores(x.numpy().reshape(33, -1)))
    np.testing.assert_array_equal(
        net(x, "hard").argmax(1).numpy(), disc.predict(x.numpy().reshape(33, -1))
    )


def test_a_checkpoint_config_without_the_new_options_compares_equal():
    cfg = resolve(TrainConfig(dataset="digits", model={"dense": [40, 40], "tau": 5.0}))
    old = {**cfg.__dict__, "model": {k: v for k, v in cfg.model.items() if k not in ADDED_DEFAULTS}}
    assert changed_options(cfg, old) == []
    newer = resolve(
        TrainConfig(dataset="digits", model={"dense": [40, 40], "tau": 5.0, "gate_param": "light"})
    )
    assert changed_options(newer, old) == ["model.gate_param: 'softmax' -> 'light'"]


RUN = {
    "dataset": "digits",
    "classes": "all",
    "steps": 30,
    "eval_every": 10,
    "batch_size": 32,
    "lr": 0.05,
    "patience": 0,
    "threads": 1,
    "seed": 2,
}


@pytest.mark.parametrize(
    "model,old_style",
    [
        ({"dense": [60, 60], "tau": 3.0}, True),
        (
            {
                "dense": [60, 60],
                "tau": 3.0,
                "connections": "learned",
                "candidates": 4,
                "gate_param": "light",
            },
            False,
        ),
    ],
)
def test_killed_runs_resume_identically_including_checkpoints_from_before_the_options(
    tmp_path, monkeypatch, model, old_style
):
    pytest.importorskip("sklearn")
    from tests.logic.killed import train_mod
    from wirelab.logic.checkpoint import load_checkpoint, save

    cfg = {**RUN, "model": model}
    whole = train_mod.run(TrainConfig(**cfg), tmp_path / "whole", quiet=True)
    out = tmp_path / "killed"
    run_until_checkpoint(monkeypatch, TrainConfig(**cfg), out)
    if old_style:  # as written before candidates / connection_tau / gate_param existed
        ck = load_checkpoint(out / "checkpoint.pt")
        ck["config"]["model"] = {
            k: v for k, v in ck["config"]["model"].items() if k not in ADDED_DEFAULTS
        }
        save(out / "checkpoint.pt", ck)
    resumed = train_mod.run(TrainConfig(**cfg), out, resume=True, quiet=True)
    for key in ("accuracy_soft", "accuracy_discrete", "best_step", "gates_by_type"):
        assert resumed[key] == whole[key], key
    assert [h["val_discrete"] for h in resumed["history"]] == [
        h["val_discrete"] for h in whole["history"]
    ]


def test_parallel_learned_kernel_agrees_with_the_reference():
    from wirelab.logic import kernels

    kernels.set_threads(2)  # 200 gates x 8 candidates x 64 samples: the parallel kernels
    fast = LearnedLogicDense(300, 200, 8, seed=3)
    ref = LearnedLogicDense(300, 200, 8, seed=3, impl="reference")
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in fast.parameters():
            p.copy_(torch.randn(p.shape, generator=gen))
    ref.load_state_dict(fast.state_dict())
    x0, g = torch.rand(300, 64, generator=gen), torch.randn(200, 64, generator=gen)
    grads = []
    for layer in (fast, ref):
        x = x0.clone().requires_grad_()
        y = layer(x, "soft")
        grads.append((y, *torch.autograd.grad((y * g).sum(), [x, layer.conn_a, layer.weight])))
    for got, want in zip(*grads, strict=True):
        assert torch.allclose(got, want, atol=1e-4)


def test_a_resumed_run_may_change_its_thread_count_and_time_budget():
    cfg = resolve(TrainConfig(dataset="digits", model={"dense": [40, 40]}, threads=2))
    saved = {**cfg.__dict__, "threads": 1, "max_minutes": 5.0}
    assert changed_options(cfg, saved) == []
    assert changed_options(
        resolve(TrainConfig(dataset="digits", model={"dense": [40, 40]}, threads=2, lr=0.02)), saved
    ) == ["lr: 0.01 -> 0.02"]
