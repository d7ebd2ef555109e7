"""The choice controller: each cue reaches its own sensory class, the input control swaps them,
the fast update equals the reference, and the evoked readout cancels symmetric cues."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import requires_larva
from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.fly.choice.network import (
    ChoiceNetwork,
    NetworkConfig,
    input_matrix,
    lateral_gains,
    reference_update,
    swapped,
)
from wirelab.fly.populations import input_neurons


@requires_larva
@pytest.mark.parametrize("swap", [False, True])
def test_each_cue_reaches_its_sensory_class_and_side(larva: Connectome, swap: bool) -> None:
    w_in = input_matrix(larva, "olfactory", "visual", swap=swap)
    att, av = ("visual", "olfactory") if swap else ("olfactory", "visual")
    want = [(att, "left"), (att, "right"), (av, "left"), (av, "right")]
    for row, (cls, side) in zip(w_in, want, strict=True):
        assert np.array_equal(np.flatnonzero(row), input_neurons(larva, cls, side))
    assert not np.any(w_in[:2] * w_in[2:])  # no neuron hears both cues


@requires_larva
def test_fast_update_equals_the_reference(larva: Connectome) -> None:
    cfg = NetworkConfig(gains=(0.6, 1.4), leak=0.7, readout="all", response="direct")
    net = ChoiceNetwork(larva, cfg, flies=3)
    rng = np.random.default_rng(0)
    x = np.zeros((2, 3, larva.n))
    for _ in range(3):
        u = rng.uniform(0, 1, (2, 3, 4))
        feats = net.update(u)
        x = reference_update(net.weights, x, u, net.w_in, cfg)
    np.testing.assert_allclose(net.state[0], x, atol=1e-5)
    dn = np.concatenate([net.dn_left, net.dn_right])
    np.testing.assert_allclose(feats, x[..., dn], atol=1e-5)


@requires_larva
def test_evoked_difference_cancels_symmetric_cues_and_flips_with_the_side(
    larva: Connectome,
) -> None:
    net = ChoiceNetwork(larva, NetworkConfig(gains=(1.0,), response="evoked"), flies=2)
    u = np.array([[[0.9, 1.0, 0.5, 0.5], [1.0, 0.9, 0.5, 0.5]]])  # (G=1, B=2, 4)
    for _ in range(10):  # the cues reach DN-VNC after a few hops
        e = net.update(u)[0, :, 0]
    assert e[0] == pytest.approx(-e[1], abs=1e-6) and abs(e[0]) > 0
    net.reset()
    for _ in range(10):
        e = net.update(np.full((1, 2, 4), 0.7))[0, :, 0]
    assert e == pytest.approx([0.0, 0.0], abs=1e-7)
    assert np.array_equal(swapped(np.arange(4)), [1, 0, 3, 2])


def test_one_class_for_both_cues_is_refused() -> None:
    with pytest.raises(UsageError):
        NetworkConfig(attractive_class="visual", aversive_class="visual")
    with pytest.raises(UsageError):
        NetworkConfig(readout="everything")


@requires_larva
def test_the_input_control_exchanges_the_two_cues_lateral_gains(larva: Connectome) -> None:
    cfg = NetworkConfig(gains=(1.0,))
    own = lateral_gains(larva, cfg, steps=10)
    crossed = lateral_gains(larva, cfg, swap=True, steps=10)
    assert own.shape == (1, 2) and np.all(own != 0)
    np.testing.assert_allclose(crossed[:, ::-1], own, rtol=1e-4, atol=1e-7)
