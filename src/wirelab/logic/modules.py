"""Logic layers for a user's own ``torch.nn`` model, batch-major as difflogic's.

A logic layer of ``out_dim`` neurons reads two of its ``in_dim`` inputs per neuron and learns
which of the 16 two-input Boolean gates it computes. Training uses the relaxation of Petersen et
al. 2022 (arXiv:2210.08277): with gate logits ``w_j`` (16,) and inputs ``a = x[:, a_j]``,
``b = x[:, b_j]`` in [0, 1],

    y[:, j] = sum_{g=0}^{15} softmax(w_j)_g f_g(a, b)    (f_AND = ab, f_XOR = a + b - 2ab, ...)

and the discrete layer keeps ``g* = argmax_g w_j``, so ``y[:, j] = f_{g*}(a, b)`` on bits.
`GroupSum` turns the last layer's ``n`` bits into ``k`` class scores: the popcount of each
group of ``n / k`` consecutive outputs, divided by the temperature ``tau``.

In ``model.train()`` a `LogicLayer` computes the relaxation (or a training mode of
`wirelab.logic.forwards`: ``st``, ``gumbel``, ``cage``); in ``model.eval()`` the hard, discrete
gates (difflogic's convention), so evaluating in eval mode gives the discrete network's
accuracy. `Binarize` is the input step (flatten, then threshold into bits) and
`wirelab.logic.discretize` turns ``Sequential(Binarize, LogicLayer, ..., GroupSum)`` into a
`DiscreteLogicNet` for the C, Verilog and FPGA back ends.

Example:
    >>> import torch
    >>> from wirelab.logic import Binarize, GroupSum, LogicLayer
    >>> net = torch.nn.Sequential(
    ...     Binarize.fixed(64), LogicLayer(64, 400), LogicLayer(400, 400), GroupSum(10, tau=10)
    ... )
    >>> net(torch.rand(32, 8, 8)).shape
    torch.Size([32, 10])
"""

from __future__ import annotations

import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic.discrete import DiscreteLayer, DiscreteLogicNet
from wirelab.logic.forwards import TRAINING_FORWARDS
from wirelab.logic.layers import Binarize, LogicDense
from wirelab.logic.learned import LearnedLogicDense
from wirelab.logic.topk import TopKLogicDense

__all__ = ["CONNECTIONS", "Binarize", "GroupSum", "LogicLayer", "sequential_to_discrete"]

# connections= of a LogicLayer -> the wiring of `wirelab.logic.model.DENSE_LAYERS`
CONNECTIONS = {
    "fixed": "unique",  # fixed random wiring, every input used about equally often
    "unique": "unique",
    "random": "random",  # fixed, both inputs uniform
    "learned": "learned",  # each input learns its wire among `candidates` wires
    "topk": "topk",  # each input reads the top `candidates` of logits over all wires
}


class LogicLayer(nn.Module):
    """``out_dim`` learned 2-input logic gates: ``(B, in_dim)`` -> ``(B, out_dim)``, values in
    [0, 1] (see the module docstring for the relaxation).

    Args:
        in_dim: inputs per sample (at least 2).
        out_dim: gates (neurons).
        connections: ``"fixed"`` (alias ``"unique"``: a fixed random wiring using every input
            about equally often), ``"random"`` (fixed, uniform), ``"learned"`` (each gate input
            learns its wire among ``candidates`` random wires, softmax at ``connection_tau``)
            or ``"topk"`` (among all ``in_dim`` wires, reading the top ``candidates``; call
            `wirelab.logic.topk.rewire_model` before each optimiser step to re-select them).
        init: ``"gaussian"`` (logits N(0, 1)) or ``"residual"`` (the pass-through gate A).
        gate_param: ``"softmax"`` (16 logits per gate) or ``"light"`` (4 truth-table logits).
        forward: the training forward (``soft``, ``st``, ``gumbel``, ``cage``); eval is hard.
        seed: seed of the wiring and the initial logits.

    Example:
        >>> layer = LogicLayer(784, 8000, connections="learned")
        >>> layer(torch.rand(16, 784)).shape
        torch.Size([16, 8000])
    """

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        connections: str = "fixed",
        *,
        candidates: int = 16,
        connection_tau: float = 1.0,
        rewire_every: int = 100,
        init: str = "gaussian",
        gate_param: str = "softmax",
        forward: str = "soft",
        seed: int = 0,
    ) -> None:
        super().__init__()
        if connections not in CONNECTIONS:
            raise UsageError(f"connections={connections!r}; use one of {', '.join(CONNECTIONS)}")
        if forward not in TRAINING_FORWARDS:
            raise UsageError(f"forward={forward!r}; use one of {', '.join(TRAINING_FORWARDS)}")
        kind = CONNECTIONS[connections]
        self.connections, self.train_forward = connections, forward
        self.in_dim, self.out_dim = int(in_dim), int(out_dim)
        self.gates_layer: nn.Module
        if kind == "learned":
            self.gates_layer = LearnedLogicDense(
                in_dim, out_dim, candidates, connection_tau, init, seed, gate_param=gate_param
            )
        elif kind == "topk":
            self.gates_layer = TopKLogicDense(
                in_dim,
                out_dim,
                candidates,
                connection_tau,
                init,
                seed,
                gate_param=gate_param,
                rewire_every=rewire_every,
            )
        else:
            self.gates_layer = LogicDense(in_dim, out_dim, kind, init, seed, gate_param=gate_param)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 2 or x.shape[1] != self.in_dim:
            raise UsageError(f"LogicLayer expected (batch, {self.in_dim}), got {tuple(x.shape)}")
        mode = self.train_forward if self.training else "hard"
        return self.gates_layer(x.t().contiguous(), mode).t()  # (B, out)

    def discretize(self) -> DiscreteLayer:
        """The argmax gate and chosen inputs of every neuron: a `DiscreteLayer`."""
        layer = self.gates_layer
        assert isinstance(layer, (LogicDense, LearnedLogicDense))
        a, b = layer.wiring()
        return DiscreteLayer(a.cpu().numpy(), b.cpu().numpy(), layer.gates())

    def extra_repr(self) -> str:
        return f"{self.in_dim} -> {self.out_dim}, connections={self.connections}"


class GroupSum(nn.Module):
    """Class scores from bits: ``(B, n)`` -> ``(B, k)``,
    ``score[:, i] = sum(x[:, i n/k : (i+1) n/k]) / tau``; ``n`` must be a multiple of ``k``.

    Example:
        >>> GroupSum(10, tau=10)(torch.ones(4, 8000)).shape
        torch.Size([4, 10])
    """

    def __init__(self, k: int, tau: float = 1.0) -> None:
        super().__init__()
        if k < 1 or not tau > 0:
            raise UsageError("GroupSum needs k >= 1 and tau > 0")
        self.k, self.tau = int(k), float(tau)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 2 or x.shape[1] % self.k:
            raise UsageError(f"GroupSum({self.k}) needs (batch, a multiple of {self.k} bits)")
        return x.reshape(len(x), self.k, -1).sum(-1) / self.tau

    def extra_repr(self) -> str:
        return f"k={self.k}, tau={self.tau}"


def sequential_to_discrete(model: nn.Sequential) -> DiscreteLogicNet:
    """``Sequential([nn.Flatten], Binarize, LogicLayer, ..., GroupSum)`` as a
    `DiscreteLogicNet`: the binarisation's thresholds, each layer's argmax gates, the head."""
    mods = [m for m in model if not isinstance(m, nn.Flatten)]
    ok = (
        len(mods) >= 3
        and isinstance(mods[0], Binarize)
        and isinstance(mods[-1], GroupSum)
        and all(isinstance(m, LogicLayer) for m in mods[1:-1])
    )
    if not ok:
        raise UsageError(
            "discretize needs Sequential(Binarize, LogicLayer, ..., GroupSum) (an nn.Flatten is "
            "allowed); a model with real-valued layers has no discrete form"
        )
    head = mods[-1]
    assert isinstance(mods[0], Binarize) and isinstance(head, GroupSum)
    layers = tuple(m.discretize() for m in mods[1:-1] if isinstance(m, LogicLayer))
    thresholds = mods[0].thresholds.detach().cpu().double().numpy()
    return DiscreteLogicNet(thresholds, layers, head.k, head.tau)
