import numpy as np
import pytest
import torch

from wirelab.errors import UsageError
from wirelab.logic.gates import PASS_A
from wirelab.logic.layers import Binarize, GroupSum, LogicDense, make_connections


@pytest.mark.parametrize("n_in,n_out", [(10, 5), (10, 7), (784, 486), (50, 400), (3, 2)])
def test_unique_connections_use_every_input_evenly(n_in, n_out):
    a, b = make_connections(n_in, n_out, "unique", torch.Generator().manual_seed(1))
    assert a.shape == b.shape == (n_out,)
    assert bool((a != b).all())
    counts = np.bincount(torch.cat([a, b]).numpy(), minlength=n_in)
    if 2 * n_out >= n_in:
        assert counts.min() >= 1
    assert counts.max() - counts.min() <= max(1, -(-2 * n_out // n_in))


def test_random_connections_never_pair_an_input_with_itself():
    a, b = make_connections(5, 1000, "random", torch.Generator().manual_seed(0))
    assert bool((a != b).all()) and int(a.max()) < 5 and int(b.max()) < 5


def test_bad_options_raise_usage_errors():
    with pytest.raises(UsageError):
        make_connections(10, 5, "ring", torch.Generator())
    with pytest.raises(UsageError):
        LogicDense(10, 5, init="zeros")
    with pytest.raises(UsageError):
        Binarize.fixed(4)(torch.rand(2, 5))


def test_state_dict_holds_the_wiring_and_reloads_identically():
    layer = LogicDense(20, 8, connections="random", seed=3)
    other = LogicDense(20, 8, connections="random", seed=4)
    assert not torch.equal(layer.a, other.a)
    other.load_state_dict(layer.state_dict())
    x = torch.rand(20, 6)
    assert torch.equal(layer(x), other(x))
    assert {"a", "b", "weight"} <= set(layer.state_dict())


def test_reference_impl_equals_fast_impl():
    fast = LogicDense(30, 12, seed=0)
    ref = LogicDense(30, 12, seed=0, impl="reference")
    x = torch.rand(30, 9)
    for mode in ("soft", "hard", "st"):
        assert torch.allclose(fast(x, mode), ref(x, mode), atol=1e-6)


def test_residual_init_passes_input_a_through():
    layer = LogicDense(16, 16, init="residual", seed=0)
    assert bool((layer.weight.argmax(-1) == PASS_A).all())
    x = torch.rand(16, 4)
    assert torch.allclose(layer(x, "hard"), x[layer.a])
    # the soft output is close to a pass-through (softmax(5 vs 0) puts ~0.9 on A)
    assert (layer(x, "soft") - x[layer.a]).abs().max() < 0.1


def test_binarize_and_thermometer():
    x = torch.tensor([[0.1, 0.6, 0.9]])
    assert torch.equal(Binarize.fixed(3)(x), torch.tensor([[0.0, 1.0, 1.0]]))
    t = Binarize.thermometer(3, 3)  # levels 0.25, 0.5, 0.75
    assert torch.equal(t(x), torch.tensor([[0, 0, 0, 1, 1, 0, 1, 1, 1]], dtype=torch.float32))


def test_group_sum():
    x = torch.arange(12.0).reshape(6, 2)  # (n, B)
    out = GroupSum(3, tau=2.0)(x)
    assert out.shape == (2, 3)
    assert torch.equal(out[:, 0], (x[0] + x[1]) / 2)
    with pytest.raises(UsageError):
        GroupSum(4)(x)
