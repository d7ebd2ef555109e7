"""Input encoding: centre crop, pruning of near-constant bits, real-valued training inputs.

The discrete network must evaluate raw inputs exactly as the torch model's hard forward, the
numpy reference and the circuit back ends do, whatever the selection."""

import shutil

import numpy as np
import pytest
import torch

from wirelab.errors import UsageError
from wirelab.logic.circuit import Circuit, PyEvaluator, simplify
from wirelab.logic.inputs import bit_activity, crop_bits, select_inputs
from wirelab.logic.layers import Binarize
from wirelab.logic.model import LogicNet
from wirelab.logic.spec import resolve_spec


def _random_gates(net: LogicNet) -> LogicNet:
    torch.manual_seed(0)
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0, 3)
    return net


def _images(n: int, h: int = 12, w: int = 12, seed: int = 0) -> np.ndarray:
    """Images with a dark border (constant bits) and random pixels inside."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, h, w)).astype(np.float32)
    x[:, :2] = 0.0
    x[:, :, -1] = 0.0
    return x


def test_crop_bits_is_the_centre_window_in_hwc_order():
    idx = crop_bits([6, 8], 4, 2)  # y0 = 1, x0 = 2
    assert idx.tolist()[:4] == [(1 * 8 + 2) * 2, (1 * 8 + 2) * 2 + 1, (1 * 8 + 3) * 2, 23]
    pix = np.unique(idx // 2)
    assert sorted({int(p // 8) for p in pix}) == [1, 2, 3, 4]
    assert sorted({int(p % 8) for p in pix}) == [2, 3, 4, 5]


def test_prune_drops_the_bits_that_are_constant_on_the_training_images():
    x = _images(300)
    spec = {
        "input_shape": [12, 12],
        "binarize": "thermometer",
        "levels": 2,
        "prune": 0.01,
        "dense": [40],
        "classes": 2,
    }
    keep = select_inputs(spec, x)
    assert keep is not None
    frac = bit_activity(resolve_spec(spec), x)
    assert all(0.01 <= frac[k] <= 0.99 for k in keep)
    dropped = sorted(set(range(12 * 12 * 2)) - set(keep))
    assert all(frac[d] < 0.01 or frac[d] > 0.99 for d in dropped)
    assert len(dropped) == 2 * (2 * 12 + 10)  # the two dark rows and the dark column
    cropped = select_inputs({**spec, "crop": 8}, x)
    assert cropped is not None and set(cropped) <= set(keep)
    assert set(cropped) <= set(crop_bits([12, 12], 8, 2).tolist())


SPECS = [
    {"crop": 8, "dense": [60, 40]},
    {"crop": 9, "prune": 0.02, "inputs": "real", "dense": [50, 20]},
    {"binarize": "thermometer", "levels": 3, "prune": 0.02, "inputs": "real", "dense": [30]},
    {
        "crop": 10,
        "inputs": "real",
        "conv": [{"channels": 4, "depth": 2, "pool": True}],
        "dense": [20],
    },
    {"binarize": "fixed", "threshold": 0.3, "inputs": "real", "dense": [40]},
]


@pytest.mark.parametrize("extra", SPECS)
def test_discrete_net_reads_raw_inputs_like_the_hard_forward_and_the_circuits(extra, tmp_path):
    x = _images(64)
    spec = {"input_shape": [12, 12], "classes": 2, "init": "gaussian", **extra}
    spec["input_bits"] = select_inputs(spec, x)
    net = _random_gates(LogicNet(spec))
    disc = net.discretize()
    assert disc.input_features == 144  # raw pixels: the format and the back ends are unchanged
    flat = x.reshape(len(x), -1)
    hard = net(torch.from_numpy(x), "hard").numpy()
    np.testing.assert_allclose(hard, disc.scores(flat), atol=1e-5)
    read = np.concatenate([disc.layers[0].a, disc.layers[0].b])
    if net.input_bits is not None:
        assert set(read.tolist()) <= set(net.input_bits.tolist())
    circuit, _ = simplify(Circuit.from_net(disc))
    counts = PyEvaluator(circuit).counts(flat)
    np.testing.assert_array_equal(counts, np.rint(disc.scores(flat) * disc.tau).astype(int))
    if shutil.which("cc") or shutil.which("gcc"):
        from wirelab.logic.circuit.backends.c import build

        lib, _ = build(circuit, tmp_path / "c", jobs=1)
        pred, c_counts = lib.classify(flat)
        np.testing.assert_array_equal(c_counts, counts)
        np.testing.assert_array_equal(pred, disc.predict(flat))


def test_real_inputs_are_relaxed_only_in_the_training_modes():
    spec = {"input_shape": [12, 12], "classes": 2, "inputs": "real", "dense": [20]}
    net = LogicNet(spec)
    x = torch.from_numpy(_images(5))
    assert torch.equal(net.encode(x, "hard"), net.binarize(x).t())
    assert torch.allclose(net.encode(x, "soft"), x.reshape(5, -1).t())  # r(x) = x at 0.5
    binary = LogicNet({**spec, "inputs": "binary"})
    binary.load_state_dict(net.state_dict())
    assert torch.equal(binary(x, "hard"), net(x, "hard"))
    assert not torch.equal(binary(x, "soft"), net(x, "soft"))


def test_relaxed_ramp_crosses_one_half_at_each_threshold():
    b = Binarize.thermometer(1, 3)  # 0.25, 0.5, 0.75
    x = torch.linspace(0, 1, 101).reshape(-1, 1)
    r = b.relaxed(x)  # (101, 3)
    hard = b(x)
    assert bool(((r > 0.5) == (hard > 0.5)).all())
    assert torch.allclose(r[0], torch.zeros(3)) and torch.allclose(r[-1], torch.ones(3))
    assert bool((r[1:] >= r[:-1]).all())


@pytest.mark.parametrize(
    "bad",
    [
        {"crop": 13},
        {"prune": 0.6},
        {"prune": 0.1, "conv": [{"channels": 2}]},
        {"inputs": "fuzzy"},
        {"input_bits": [0, 0, 1]},
        {"input_bits": [0, 500]},
        {"conv": [{"channels": 2, "stride": 2}]},
        {"tau": float("nan")},
    ],
)
def test_bad_input_options_are_usage_errors(bad):
    with pytest.raises(UsageError):
        LogicNet({"input_shape": [12, 12], "classes": 2, "dense": [20], **bad})


def test_prune_without_a_selection_is_refused():
    with pytest.raises(UsageError, match="input_bits"):
        LogicNet({"input_shape": [12, 12], "classes": 2, "dense": [20], "prune": 0.01})
