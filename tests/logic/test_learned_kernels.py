"""The fused learned-connection kernel: equal to the plain-torch reference, and bit for bit the
same gradients on one and two threads."""

import pytest
import torch

from tests.logic.kernel_threads import SHAPES, _inputs, gradients, one_and_two_threads
from wirelab.logic import kernels
from wirelab.logic.functional import gate_poly
from wirelab.logic.learned import select_reference

pytestmark = pytest.mark.skipif(not kernels.HAVE_NUMBA, reason="numba not installed")


@pytest.mark.parametrize("shape", SHAPES)
def test_learned_kernel_matches_the_reference(shape):
    t = _inputs(*shape, seed=7)
    x, pa, pb, c = (t[k].clone().requires_grad_() for k in ("x", "pa", "pb", "c"))
    ref = gate_poly(select_reference(x, t["ca"], pa), select_reference(x, t["cb"], pb), c)
    want = [ref.detach(), *torch.autograd.grad((ref * t["gy"]).sum(), [x, pa, pb, c])]
    got = gradients("learned_gate", t)
    for g, w in zip(got, want, strict=True):
        assert torch.allclose(g, w, atol=1e-4, rtol=1e-4)


def test_learned_backward_gives_the_same_bits_on_one_and_two_threads(tmp_path):
    """y, dL/dx, dL/dpa, dL/dpb and dL/dc are bit for bit the same on 1 and 2 threads."""
    for shape, runs in one_and_two_threads("learned_gate", tmp_path):
        assert runs[1][0] == 1 and runs[2][:2] == (2, 2), shape  # both kernels really ran
        for one, two in zip(runs[1][2], runs[2][2], strict=True):
            assert torch.equal(one, two), shape
