"""Whole-input softmax wiring with the Dirac start (``dirac``) and its K-candidate store
(``dirac-k``): the start, kernel against reference, discretisation, the memory refusal."""

import json

import numpy as np
import pytest
import torch

from wirelab.errors import UsageError
from wirelab.logic.config import TrainConfig, resolve
from wirelab.logic.dirac import (
    DIRAC_LOGIT,
    WholeInputLogicDense,
    dirac_logits,
    whole_input_bytes,
)
from wirelab.logic.dirac_k import DiracCandidatesDense, dirac_candidates
from wirelab.logic.functional import gate_poly, param_coeffs
from wirelab.logic.model import LogicNet


@pytest.mark.parametrize("n_in,n_out", [(50, 20), (40, 100), (7, 3)])
def test_the_dirac_start_is_one_wire_a_slot_each_used_about_equally(n_in, n_out):
    logits, a, b = dirac_logits(n_in, n_out, torch.Generator().manual_seed(4))
    assert logits.shape == (2 * n_out, n_in) and logits.dtype == torch.float32
    chosen = torch.cat([a, b])
    assert torch.equal(logits.argmax(1), chosen)
    top = logits[torch.arange(2 * n_out), chosen]
    assert torch.allclose(top, torch.full_like(top, DIRAC_LOGIT), atol=0.1)
    rest = logits.clone()
    rest[torch.arange(2 * n_out), chosen] = 0.0
    assert 0.005 < float(rest.std()) < 0.02  # the N(0, 0.01^2) tie-break
    counts = np.bincount(chosen.numpy(), minlength=n_in)
    assert counts.max() - counts.min() <= 1
    assert bool((a != b).all())


def _agree(layers, modes, params):
    gen = torch.Generator().manual_seed(0)
    state = {
        k: 3 * torch.randn(v.shape, generator=gen) if v.is_floating_point() else v
        for k, v in layers["fast"].state_dict().items()
    }
    n_in = layers["fast"].in_features
    n_out = layers["fast"].out_features
    x0, g = torch.rand(n_in, 37, generator=gen), torch.randn(n_out, 37, generator=gen)
    for mode in modes:
        out = {}
        for impl, layer in layers.items():
            layer.load_state_dict(state)
            x = x0.clone().requires_grad_()
            y = layer(x, mode)
            grads = torch.autograd.grad((y * g).sum(), [x, *(getattr(layer, p) for p in params)])
            out[impl] = (y, *grads)
        for got, want in zip(out["fast"], out["reference"], strict=True):
            assert torch.allclose(got, want, atol=2e-5), mode


@pytest.mark.parametrize("gate_param", ["softmax", "light"])
def test_whole_input_kernel_agrees_with_the_reference_values_and_gradients(gate_param):
    layers = {
        impl: WholeInputLogicDense(40, 13, 0.7, seed=1, impl=impl, gate_param=gate_param)
        for impl in ("fast", "reference")
    }
    _agree(layers, ("soft", "st", "cage"), ("conn", "weight"))
    layer = layers["fast"]
    x0 = torch.rand(40, 9)
    a, b = layer.wiring()
    hard = gate_poly(x0[a], x0[b], param_coeffs(layer.weight, "hard"))
    for mode in ("hard", "st", "cage"):  # straight-through forwards read the chosen wires
        assert torch.allclose(layer(x0, mode), hard, atol=1e-6), mode


def test_dirac_k_candidates_start_on_their_first_column_and_agree_with_the_reference():
    cand_a, cand_b = dirac_candidates(30, 40, 6, torch.Generator().manual_seed(2))
    both = torch.cat([cand_a, cand_b], 1)
    assert all(len(set(row)) == 12 for row in both.tolist())  # 2K distinct wires a gate
    counts = np.bincount(torch.cat([cand_a[:, 0], cand_b[:, 0]]).numpy(), minlength=30)
    assert counts.max() - counts.min() <= 1  # Dirac wires dealt evenly
    layers = {
        impl: DiracCandidatesDense(30, 40, 6, seed=5, impl=impl) for impl in ("fast", "reference")
    }
    start = layers["fast"]
    a, b = start.wiring()
    assert torch.equal(a, start.cand_a[:, 0]) and torch.equal(b, start.cand_b[:, 0])
    assert float(start.probabilities()[0][:, 0].min().detach()) > 0.99  # e^10 / (e^10 + 5)
    _agree(layers, ("soft", "cage"), ("conn_a", "conn_b", "weight"))


@pytest.mark.parametrize(
    "extra",
    [
        {"connections": "dirac"},
        {"connections": "dirac", "gate_param": "light", "crop": 20, "inputs": "real"},
        {"connections": "dirac-k", "candidates": 5, "connection_tau": 0.5},
    ],
)
def test_the_discrete_net_equals_the_argmax_relaxed_model(extra):
    torch.manual_seed(0)
    net = LogicNet({"input_shape": [28, 28], "dense": [60, 40], "classes": 10, **extra})
    with torch.no_grad():  # random gates and connections everywhere
        for p in net.parameters():
            p.normal_(0, 3)
    net.eval()
    x = torch.rand(33, 28, 28)
    disc = net.discretize()
    flat = x.numpy().reshape(33, -1)
    np.testing.assert_allclose(net(x, "hard").numpy(), disc.scores(flat))
    np.testing.assert_array_equal(net(x, "hard").argmax(1).numpy(), disc.predict(flat))


def test_a_whole_input_layer_over_the_budget_is_refused_with_its_estimate():
    assert whole_input_bytes(8000, 8000) == 24 * 2 * 8000 * 8000
    with pytest.raises(UsageError, match=r"3\.1 GB.*dirac-k") as err:
        WholeInputLogicDense(8000, 8000)
    assert "\n" not in str(err.value)
    with pytest.raises(UsageError, match="dirac-k"):
        LogicNet({"input_shape": [28, 28], "dense": [8000, 8000], "connections": "dirac"})
    with pytest.raises(UsageError, match="plain softmax"):
        resolve(
            TrainConfig(
                dataset="digits",
                model={"dense": [40], "connections": "dirac"},
                connection_tau_end=0.1,
            )
        )


def test_the_options_come_from_a_recipe_toml_and_the_command_line(tmp_path):
    from tests.clirun import wirelab
    from wirelab.logic.api import make_config

    recipe = tmp_path / "r.toml"
    recipe.write_text(
        '[train]\ndataset = "mnist-q75"\nsteps = 10\n'
        '[model]\ndense = [60, 60]\nconnections = "dirac"\ngroup_tau = "adaptive"\n'
    )
    cfg = resolve(make_config(recipe))
    assert cfg.dataset == "mnist-q75"
    assert (cfg.model["connections"], cfg.model["group_tau"]) == ("dirac", "adaptive")
    pytest.importorskip("sklearn")
    out = tmp_path / "run"
    args = ["--dataset", "digits", "--dense", "40,40", "--steps", "6", "--eval-every", "3"]
    opts = ["--connections", "dirac-k", "--candidates", "4", "--group-tau", "adaptive"]
    res = wirelab("logic", "train", *args, *opts, "--threads", "1", "--quiet", "--out", out)
    assert res.returncode == 0, res.stderr
    net = LogicNet(json.loads((out / "config.json").read_text())["config"]["model"])
    assert type(net.head).__name__ == "AdaptiveGroupSum"
    assert type(net.layers[0]).__name__ == "DiracCandidatesDense"
