"""The adaptive GroupSum temperature (``group_tau = "adaptive"``): the module against the rule's
plain loop, its gradient, eval mode, the cap, and the discrete net."""

import math

import numpy as np
import pytest
import torch

from wirelab.logic.adaptive_tau import AdaptiveGroupSum, adaptive_tau_reference
from wirelab.logic.model import LogicNet


@pytest.mark.parametrize("k,per_class", [(10, 100), (10, 24), (3, 700)])
def test_the_head_follows_the_reference_rule_step_by_step(k, per_class):
    head = AdaptiveGroupSum(k, k * per_class)
    gen = torch.Generator().manual_seed(0)
    stds, taus, outs = [], [], []
    for step in range(60):
        p = 0.2 + 0.6 * step / 60  # class sums spread out over the steps
        x = (torch.rand(k * per_class, 32, generator=gen) < p).float()
        x[: per_class * (k // 2)] *= torch.rand(1, generator=gen)  # classes differ
        sums = x.reshape(k, per_class, 32).sum(1).t().double().numpy()
        stds.append(float(np.std(sums, ddof=1)))
        outs.append((head(x), sums))
        taus.append(head.tau)
    want = adaptive_tau_reference(stds, per_class)
    assert want[0] == min(math.sqrt(per_class), per_class / 6)
    np.testing.assert_allclose(taus, want, rtol=1e-12)
    for (y, sums), tau in zip(outs, want, strict=True):
        np.testing.assert_allclose(y.numpy(), sums / tau, rtol=1e-6)
    assert max(taus) <= per_class / 6 and len(set(taus)) > 1


def test_gradient_is_one_over_tau_and_eval_mode_leaves_tau_alone():
    head = AdaptiveGroupSum(4, 40)
    x = torch.rand(40, 8, requires_grad=True)
    y = head(x)  # the first step: tau = min(sqrt(10), 10 / 6)
    (g,) = torch.autograd.grad(y.sum(), [x])
    assert torch.allclose(g, torch.full_like(g, 1 / head.tau))
    head(torch.rand(40, 8))
    head.eval()
    tau, steps = head.tau, int(head.steps)
    head(torch.rand(40, 8))
    assert head.tau == tau and int(head.steps) == steps == 2
    assert set(head.state_dict()) == {"tau_value", "steps"}  # checkpoints carry the schedule


def test_the_discrete_net_has_the_adapted_tau_and_equals_the_hard_model():
    torch.manual_seed(0)
    net = LogicNet(
        {"input_shape": [8, 8], "dense": [60, 40], "classes": 4, "group_tau": "adaptive"}
    )
    net.train()
    for _ in range(5):
        net(torch.rand(16, 8, 8), "soft")
    net.eval()
    x = torch.rand(33, 8, 8)
    disc = net.discretize()
    assert disc.tau == net.head.tau != min(math.sqrt(10), 10 / 6)
    np.testing.assert_allclose(net(x, "hard").numpy(), disc.scores(x.numpy().reshape(33, -1)))
