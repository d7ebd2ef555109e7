import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.logic.functional import (
    gate_poly,
    hard_coeffs,
    mixture_reference,
    relaxed_gate,
    soft_coeffs,
    straight_through_coeffs,
)
from wirelab.logic.gates import COEFFS, TRUTH


def test_relaxations_match_truth_table_and_coeffs():
    for g in range(16):
        for i, (a, b) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
            v = relaxed_gate(g, torch.tensor([float(a)]), torch.tensor([float(b)]))
            assert v.item() == TRUTH[g, i]
        a, b = torch.rand(50), torch.rand(50)
        c = COEFFS[g]
        poly = c[0] + c[1] * a + c[2] * b + c[3] * a * b
        assert torch.allclose(relaxed_gate(g, a, b), poly.float(), atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 20), bsz=st.integers(1, 17), seed=st.integers(0, 2**31 - 1))
def test_fast_form_equals_16_way_mixture_values_and_gradients(n, bsz, seed):
    gen = torch.Generator().manual_seed(seed)
    a = torch.rand(n, bsz, generator=gen, dtype=torch.float64, requires_grad=True)
    b = torch.rand(n, bsz, generator=gen, dtype=torch.float64, requires_grad=True)
    w = (3 * torch.randn(n, 16, generator=gen, dtype=torch.float64)).requires_grad_()
    g = torch.randn(n, bsz, generator=gen, dtype=torch.float64)
    ref = mixture_reference(a, b, w)
    fast = gate_poly(a, b, soft_coeffs(w))
    assert torch.allclose(ref, fast, atol=1e-12)
    gr = torch.autograd.grad((ref * g).sum(), [a, b, w])
    gf = torch.autograd.grad((fast * g).sum(), [a, b, w])
    for x, y in zip(gr, gf, strict=True):
        assert torch.allclose(x, y, atol=1e-10)


def test_hard_and_straight_through():
    w = torch.randn(64, 16, requires_grad=True)
    a = torch.randint(0, 2, (64, 8)).float()
    b = torch.randint(0, 2, (64, 8)).float()
    gates = w.argmax(-1).numpy()
    hard = gate_poly(a, b, hard_coeffs(w)).numpy()
    expect = TRUTH[gates[:, None], (2 * a + b).long().numpy()]
    np.testing.assert_array_equal(hard, expect)
    st_c = straight_through_coeffs(w)
    assert torch.equal(st_c, hard_coeffs(w))  # forward is hard
    (gs,) = torch.autograd.grad(st_c.sum(), [w])
    (gsoft,) = torch.autograd.grad(soft_coeffs(w).sum(), [w])
    assert torch.allclose(gs, gsoft)  # backward is soft
