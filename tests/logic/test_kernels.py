import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.logic.kernel_threads import one_and_two_threads
from wirelab.logic import kernels
from wirelab.logic.functional import gate_poly

KERNELS = ["torch"] + (["numba"] if kernels.HAVE_NUMBA else [])


@pytest.mark.parametrize("kernel", KERNELS)
@settings(max_examples=25, deadline=None)
@given(
    n_in=st.integers(1, 30),
    n=st.integers(1, 40),
    bsz=st.integers(1, 70),
    seed=st.integers(0, 2**31 - 1),
)
def test_fused_kernel_matches_reference(kernel, n_in, n, bsz, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand(n_in, bsz, generator=gen, requires_grad=True)
    a = torch.randint(0, n_in, (n,), generator=gen)
    b = torch.randint(0, n_in, (n,), generator=gen)  # a == b and repeated inputs included
    c = torch.randn(n, 4, generator=gen, requires_grad=True)
    g = torch.randn(n, bsz, generator=gen)
    y = kernels.gather_gate(x, a, b, c, kernel)
    ref = gate_poly(x[a], x[b], c)
    assert torch.allclose(y, ref, atol=1e-5)
    gx, gc = torch.autograd.grad((y * g).sum(), [x, c])
    rx, rc = torch.autograd.grad((ref * g).sum(), [x, c])
    assert torch.allclose(gx, rx, atol=1e-4)
    assert torch.allclose(gc, rc, atol=1e-4)


@pytest.mark.skipif(not kernels.HAVE_NUMBA, reason="numba not installed")
def test_numba_backward_is_deterministic_with_two_threads():
    kernels.set_threads(2)
    x = torch.rand(300, 257, requires_grad=True)
    a, b = torch.randint(0, 300, (500,)), torch.randint(0, 300, (500,))
    c = torch.randn(500, 4, requires_grad=True)
    grads = []
    for _ in range(2):
        y = kernels.gather_gate(x, a, b, c, "numba")
        grads.append(torch.autograd.grad(y.square().sum(), [x, c]))
    assert torch.equal(grads[0][0], grads[1][0]) and torch.equal(grads[0][1], grads[1][1])


@pytest.mark.skipif(not kernels.HAVE_NUMBA, reason="numba not installed")
def test_numba_backward_gives_the_same_bits_on_one_and_two_threads(tmp_path):
    """The output and every gradient, the per-gate sums included, are bit for bit the same on
    1 and 2 threads (the serial kernel against the threaded one): runs reproduce on any thread
    count."""
    for shape, runs in one_and_two_threads("gather_gate", tmp_path):
        assert runs[1][0] == 1 and runs[2][:2] == (2, 2), shape  # both kernels really ran
        for one, two in zip(runs[1][2], runs[2][2], strict=True):
            assert torch.equal(one, two), shape


@pytest.mark.skipif(not kernels.HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("module", ["kernels", "learned_kernels"])
def test_serial_and_parallel_kernels_have_their_own_cache_entries(module):
    """numba caches by function name: a shared name made the serial kernels load the parallel
    ones from the cache, so one-thread runs used every core."""
    import importlib

    mod = importlib.import_module(f"wirelab.logic.{module}")
    names = {
        getattr(mod, f)._cache._cache_file._index_name
        for f in ("_forward_par", "_forward_ser", "_backward_par", "_backward_ser")
    }
    assert len(names) == 4
    assert not mod._forward_ser.targetoptions.get("parallel")
    assert mod._forward_par.targetoptions.get("parallel")
