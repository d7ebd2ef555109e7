"""Per-image quantile inputs (``mnist-q75``): vectorised against the per-image loop, the
registered training set, and the inputs a model reads from it."""

import numpy as np
import pytest
import torch

from wirelab.errors import UsageError
from wirelab.logic.datasets import TRAINING_SETS, TrainingSet, quantile_set
from wirelab.logic.model import LogicNet
from wirelab.logic.quantile import quantile_bits, quantile_bits_reference


@pytest.mark.parametrize("q", [0.75, 0.5, 0.0, 1.0])
def test_quantile_bits_equal_the_per_image_loop(q):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (20, 7, 9)).astype(np.uint8)
    img[:5] = (img[:5] > 200) * img[:5]  # mostly background, like MNIST: ties at 0
    img[5] = 17  # a flat image: no pixel above its quantile
    got = quantile_bits(img, q)
    np.testing.assert_array_equal(got, quantile_bits_reference(img, q))
    assert got.dtype == np.uint8 and set(np.unique(got)) <= {0, 255}
    assert not got[5].any()
    ones = (got > 0).reshape(20, -1).sum(1)
    assert (ones <= 63 - int(np.floor(q * 62)) - 1).all()  # at most the pixels above h


def test_bad_quantile_is_a_one_line_error():
    with pytest.raises(UsageError, match="quantile"):
        quantile_bits(np.zeros((1, 2, 2), np.uint8), 1.5)


def test_mnist_q75_is_registered_and_a_model_reads_its_bits_exactly():
    entry = TRAINING_SETS.get("mnist-q75")
    assert (entry.classes, entry.shape) == (10, (28, 28))
    rng = np.random.default_rng(1)
    raw = rng.integers(0, 256, (6, 28, 28)).astype(np.uint8)
    base = TrainingSet(10, (28, 28), lambda: (raw, np.arange(6), raw[:2], np.arange(2)))
    xtr, _, xte, _ = quantile_set(base).load()
    np.testing.assert_array_equal(xte, quantile_bits(raw[:2]))
    np.testing.assert_array_equal(xtr, quantile_bits(raw))
    x = torch.from_numpy(xtr.astype(np.float32) / 255)
    net = LogicNet({"input_shape": [28, 28], "dense": [40], "inputs": "real", "crop": 20})
    assert torch.equal(net.encode(x, "soft"), net.encode(x, "hard"))  # no input gap
    disc = net.discretize()
    np.testing.assert_array_equal(
        net(x, "hard").argmax(1).numpy(), disc.predict(x.reshape(6, -1).numpy())
    )
