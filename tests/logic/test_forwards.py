"""Forward modes: each hard mode's forward is a real gate (or wire), its gradient the stated soft
surrogate's; Gumbel samples follow the softmax; every mode's fast path equals its reference."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.errors import UsageError
from wirelab.logic.config import FORWARDS
from wirelab.logic.forwards import (
    CAGE_MARGIN,
    MODES,
    cage_scale,
    get_forward,
    gumbel_like,
    seed_noise,
)
from wirelab.logic.functional import coeff_matrix, param_coeffs
from wirelab.logic.learned import LearnedLogicDense
from wirelab.logic.topk import TopKLogicDense

HARD_FORWARD = ("st", "gumbel", "cage", "gumbel-gates")


def test_the_registry_names_every_mode_and_refuses_others():
    assert set(MODES) == {"soft", "hard", "st", "gumbel", "cage", "gumbel-gates"}
    assert "hard" not in FORWARDS and set(FORWARDS) == set(MODES) - {"hard"}
    with pytest.raises(UsageError):
        get_forward("sharp")


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), seed=st.integers(0, 2**31 - 1), scale=st.floats(0.1, 8.0))
def test_gate_coefficients_hard_forward_and_their_soft_gradient(n, seed, scale):
    gen = torch.Generator().manual_seed(seed)
    w = (scale * torch.randn(n, 16, generator=gen, dtype=torch.float64)).requires_grad_()
    up = torch.randn(n, 4, generator=gen, dtype=torch.float64)
    coeffs = coeff_matrix(w)
    torch.manual_seed(seed)
    g = gumbel_like(w)
    z = {"st": w, "gumbel": w + g, "gumbel-gates": w + g, "cage": w / cage_scale(w)}
    for mode in HARD_FORWARD:
        torch.manual_seed(seed)
        c = get_forward(mode).coeffs(w)
        chosen = (w + g if mode.startswith("gumbel") else w).detach().argmax(1)
        assert torch.equal(c.detach(), coeffs[chosen]), mode  # a real gate, forward
        (got,) = torch.autograd.grad((c * up).sum(), [w])
        (want,) = torch.autograd.grad(((torch.softmax(z[mode], 1) @ coeffs) * up).sum(), [w])
        assert torch.allclose(got, want, atol=1e-12), mode


def test_cage_scale_is_one_for_unsure_choices_and_bounds_the_backward_margin():
    z = torch.tensor([[0.0, 0.5, -1.0], [10.0, 0.0, -3.0], [1.0, 1.0, 1.0]])
    s = cage_scale(z)
    assert s[0].item() == 1.0 and s[2].item() == 1.0
    assert s[1].item() == pytest.approx(10.0 / CAGE_MARGIN)
    top2 = (z / s).topk(2, 1).values
    assert float((top2[:, 0] - top2[:, 1]).max()) <= CAGE_MARGIN + 1e-6
    w = torch.tensor([[0.3, 0.2] + [0.0] * 14], requires_grad=True)  # unsure: plain ST
    (g1,) = torch.autograd.grad(get_forward("cage").coeffs(w).sum(), [w])
    (g2,) = torch.autograd.grad(param_coeffs(w, "st").sum(), [w])
    assert torch.allclose(g1, g2)


def test_light_gumbel_and_cage_are_hard_truth_tables_forward():
    z = torch.randn(50, 4, generator=torch.Generator().manual_seed(3)) * 3
    for mode in HARD_FORWARD:
        torch.manual_seed(0)
        c = get_forward(mode).coeffs(z)
        rows = {tuple(r) for r in coeff_matrix(z).tolist()}
        assert all(tuple(r) in rows for r in c.tolist()), mode
    assert torch.equal(get_forward("cage").coeffs(z), param_coeffs(z, "hard"))


def test_gumbel_choices_are_samples_of_the_softmax():
    logits = torch.tensor([[1.0, 0.0, -1.0, 0.5]]).repeat(40000, 1)
    torch.manual_seed(0)
    idx, p = get_forward("gumbel").select(logits, 0.5)
    freq = np.bincount(idx.numpy(), minlength=4) / len(idx)
    want = torch.softmax(logits[0] / 0.5, 0).numpy()
    np.testing.assert_allclose(freq, want, atol=0.01)
    assert torch.allclose(p.sum(1), torch.ones(len(p)))


def test_gumbel_gates_reads_the_argmax_wires():
    layer = LearnedLogicDense(30, 8, 4, seed=0)
    with torch.no_grad():
        layer.conn_a.normal_(0, 3)
        layer.conn_b.normal_(0, 3)
    x = torch.rand(30, 5)
    a, b = layer.wiring()
    torch.manual_seed(1)
    y = layer(x, "gumbel-gates")
    torch.manual_seed(1)
    c = get_forward("gumbel").coeffs(layer.weight)
    assert torch.allclose(
        y, c[:, :1] + c[:, 1:2] * x[a] + c[:, 2:3] * x[b] + c[:, 3:] * x[a] * x[b]
    )


def test_seed_noise_repeats_the_draws_of_a_step():
    seed_noise("gumbel", 3, 17)
    a = torch.rand(5)
    seed_noise("gumbel", 3, 17)
    assert torch.equal(a, torch.rand(5))
    seed_noise("gumbel", 3, 18)
    assert not torch.equal(a, torch.rand(5))


@pytest.mark.parametrize("cls", [LearnedLogicDense, TopKLogicDense])
@pytest.mark.parametrize("gate_param", ["softmax", "light"])
@pytest.mark.parametrize("mode", ["soft", *HARD_FORWARD])
def test_every_mode_fast_and_reference_agree(cls, gate_param, mode):
    layers = {
        i: cls(40, 13, 6, 0.7, seed=1, impl=i, gate_param=gate_param) for i in ("fast", "reference")
    }
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in layers["fast"].parameters():
            p.copy_(torch.randn(p.shape, generator=gen))
    layers["reference"].load_state_dict(layers["fast"].state_dict())
    x0, up = torch.rand(40, 37, generator=gen), torch.randn(13, 37, generator=gen)
    out = {}
    for impl, layer in layers.items():
        x = x0.clone().requires_grad_()
        torch.manual_seed(5)
        y = layer(x, mode)
        params = [x, layer.conn_a, layer.conn_b, layer.weight]
        out[impl] = (y, *torch.autograd.grad((y * up).sum(), params))
    for got, want in zip(out["fast"], out["reference"], strict=True):
        assert torch.allclose(got, want, atol=1e-5)
    if mode in ("st", "cage"):  # without noise, the forward is the discrete layer's
        assert torch.allclose(out["fast"][0], layers["fast"](x0, "hard"), atol=1e-6)


@pytest.mark.parametrize("mode", ["st", "cage"])
def test_st_sends_the_soft_input_gradient_to_every_candidate_the_others_to_the_chosen(mode):
    """``st`` keeps the form its recipes trained with (``x[a] + xa_soft - xa_soft.detach()``):
    unchosen candidates get input gradient; the fused modes give it to the chosen wire alone."""
    layer = LearnedLogicDense(30, 6, 4, seed=0)
    with torch.no_grad():
        layer.conn_a.normal_(0, 1)
        layer.conn_b.normal_(0, 1)
    x = torch.rand(30, 5, requires_grad=True)
    (grad,) = torch.autograd.grad(layer(x, mode).sum(), [x])
    a, b = layer.wiring()
    chosen = torch.zeros(30, dtype=torch.bool)
    chosen[a], chosen[b] = True, True
    candidates = torch.zeros(30, dtype=torch.bool)
    candidates[layer.cand_a.flatten()], candidates[layer.cand_b.flatten()] = True, True
    reaches_unchosen = bool(grad[candidates & ~chosen].abs().sum() > 0)
    assert reaches_unchosen == get_forward(mode).soft_wire_inputs
