import numpy as np
import pytest
import torch

from wirelab.errors import UsageError
from wirelab.logic.conv import LogicConv2d, OrPool2d
from wirelab.logic.discrete import DiscreteLogicNet
from wirelab.logic.model import LogicNet, diagnostics

SPECS = [
    {"input_shape": [28, 28], "dense": [64, 40], "classes": 2, "init": "gaussian"},
    {
        "input_shape": [10, 10],
        "binarize": "thermometer",
        "levels": 3,
        "conv": [{"channels": 6, "kernel": 3, "depth": 3, "pool": True}],
        "dense": [50],
        "classes": 10,
        "init": "gaussian",
    },
    {
        "input_shape": [12, 12],
        "conv": [{"channels": 4, "depth": 2, "pool": True}, {"channels": 8, "depth": 2}],
        "dense": [30],
        "classes": 3,
        "connections": "random",
        "init": "gaussian",
    },
]


@pytest.mark.parametrize("spec", SPECS)
def test_discretized_net_equals_hard_forward_and_survives_json(spec, tmp_path):
    torch.manual_seed(0)
    net = LogicNet(spec)
    with torch.no_grad():  # random gates everywhere, not just the init
        for p in net.parameters():
            p.normal_(0, 3)
    x = torch.rand(37, *spec["input_shape"])
    disc = net.discretize()
    scores = net(x, "hard").numpy()
    np.testing.assert_allclose(scores, disc.scores(x.numpy().reshape(37, -1)), atol=1e-5)
    disc.save(tmp_path / "d.json")
    back = DiscreteLogicNet.load(tmp_path / "d.json")
    np.testing.assert_array_equal(back.predict(x.numpy().reshape(37, -1)), disc.predict(x.numpy()))
    d = diagnostics(disc)
    assert d["gates"] == disc.gates == sum(d["gates_by_type"].values())
    assert 0.0 <= d["pass_through_fraction"] <= 1.0


def test_or_pool_equals_max_pool_on_bits():
    pool = OrPool2d((6, 7, 3))
    img = torch.randint(0, 2, (4, 3, 6, 7)).float()  # (B, C, H, W)
    flat = img.permute(2, 3, 1, 0).reshape(-1, 4)  # (H W C, B)
    ref = torch.nn.functional.max_pool2d(img, 2).permute(2, 3, 1, 0).reshape(-1, 4)
    assert torch.equal(pool(flat), ref)


def test_conv_kernels_read_two_channels_inside_their_window():
    conv = LogicConv2d((9, 9, 4), channels=5, kernel=3, depth=3, seed=1)
    _, w, c = conv.in_shape
    leaves = torch.stack([conv.a0, conv.b0], -1).reshape(conv.positions, 5, -1)  # (P, K, 8)
    for p in (0, conv.positions - 1):
        py, px = divmod(p, conv.out_shape[1])
        for k in range(5):
            ys, xs, cs = leaves[p, k] // c // w, leaves[p, k] // c % w, leaves[p, k] % c
            assert int(ys.min()) >= py and int(ys.max()) < py + 3
            assert int(xs.min()) >= px and int(xs.max()) < px + 3
            assert len(set(cs.tolist())) <= 2
    assert conv.out_features == 7 * 7 * 5


def test_bad_model_specs():
    with pytest.raises(UsageError):
        LogicNet({"dense": [7], "classes": 2})
    with pytest.raises(UsageError):
        LogicNet({"dense": [8], "classes": 2, "colour": True})
    net = LogicNet({"input_shape": [28, 28], "dense": [8], "classes": 2})
    with pytest.raises(UsageError, match="784"):
        net(torch.rand(3, 27, 27))


@pytest.mark.parametrize("bits", [2, 3])
def test_tiny_net_learns_parity_exactly(bits):
    """XOR (2 bits) and 3-bit parity, learned to 100% by the discrete network."""
    torch.manual_seed(0)
    x = torch.tensor([[(i >> k) & 1 for k in range(bits)] for i in range(2**bits)]).float()
    y = x.sum(1).long() % 2
    net = LogicNet(
        {
            "input_shape": [bits],
            "dense": [16] * (bits - 1) + [2],
            "classes": 2,
            "tau": 1.0,
            "init": "gaussian",
            "connections": "random",
            "seed": 1,
        }
    )
    opt = torch.optim.AdamW(net.parameters(), lr=0.1)
    for _ in range(400):
        loss = torch.nn.functional.cross_entropy(net(x, "soft") * 4, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    disc = net.discretize()
    np.testing.assert_array_equal(disc.predict(x.numpy()), y.numpy())
