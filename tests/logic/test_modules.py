"""`LogicLayer`, `GroupSum` and `Binarize` in a user's ``torch.nn.Sequential``: shapes, modes,
the same numbers as the feature-major layers, training, discretisation and export to C."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic import (
    Binarize,
    GroupSum,
    LogicLayer,
    discretize,
    export_c,
    export_verilog,
    to_circuit,
)
from wirelab.logic.layers import GroupSum as FeatureMajorGroupSum
from wirelab.logic.layers import LogicDense
from wirelab.logic.topk import rewire_model


@pytest.mark.parametrize("connections", ["fixed", "random", "learned", "topk"])
def test_a_logic_layer_is_batch_major_and_hard_in_eval(connections: str) -> None:
    layer = LogicLayer(12, 30, connections, seed=1)
    x = torch.rand(7, 12)
    soft = layer(x)
    assert soft.shape == (7, 30) and soft.requires_grad
    layer.eval()
    bits = (x > 0.5).float()
    hard = layer(bits)
    assert set(hard.unique().tolist()) <= {0.0, 1.0}
    d = layer.discretize()
    want = d.gate[None, :].repeat(7, 0)
    from wirelab.logic.gates import TRUTH

    b = bits.numpy().astype(np.uint8)
    assert np.array_equal(hard.detach().numpy(), TRUTH[want, 2 * b[:, d.a] + b[:, d.b]])


def test_the_fixed_layer_is_the_feature_major_layer_transposed() -> None:
    layer = LogicLayer(10, 20, "fixed", seed=3)
    inner = LogicDense(10, 20, "unique", "gaussian", 3)
    x = torch.rand(5, 10)
    assert torch.allclose(layer(x), inner(x.t().contiguous(), "soft").t())
    scores = torch.rand(5, 20)
    assert torch.allclose(GroupSum(4, 2.0)(scores), FeatureMajorGroupSum(4, 2.0)(scores.t()))


def test_bad_shapes_and_options_are_one_line_errors() -> None:
    with pytest.raises(UsageError, match="connections='magic'"):
        LogicLayer(4, 4, "magic")
    with pytest.raises(UsageError, match=r"expected \(batch, 4\)"):
        LogicLayer(4, 4)(torch.rand(2, 5))
    with pytest.raises(UsageError, match="multiple of 3"):
        GroupSum(3)(torch.rand(2, 8))
    with pytest.raises(UsageError, match="no discrete form"):
        discretize(nn.Sequential(nn.Linear(4, 4), GroupSum(2)))


def _parity_data(n: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.rand(n, 2, 2, generator=g)
    y = ((x[:, 0, 0] > 0.5) ^ (x[:, 1, 1] > 0.5)).long()  # XOR of two pixels
    return x, y


def test_a_sequential_learns_xor_and_its_discrete_net_agrees(tmp_path: Path) -> None:
    x, y = _parity_data()
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Flatten(),
        Binarize.fixed(4),
        LogicLayer(4, 32, "learned", candidates=4),
        LogicLayer(32, 16),
        GroupSum(2, tau=2.0),
    )
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    for step in range(150):
        rewire_model(model, opt, step)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        scores = model(x)
    assert float((scores.argmax(1) == y).float().mean()) > 0.95
    net = discretize(model)
    flat = x.reshape(len(x), -1).numpy()
    assert np.allclose(net.scores(flat), scores.numpy())
    assert net.gates == 48 and to_circuit(net).num_gates <= 48
    paths = export_c(net, tmp_path / "c")
    assert all(p.is_file() for p in paths)
    assert (tmp_path / "v" / "wl_circuit.v") in export_verilog(net, tmp_path / "v")
    with pytest.raises(UsageError, match="needs out="):
        export_c(net)
