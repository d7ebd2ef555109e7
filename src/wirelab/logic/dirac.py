"""Whole-input softmax wiring with a "Dirac" start: each gate input is a softmax over *every*
output of the previous layer, starting as random fixed wiring that can move.

After LILogicNet (Fojcik, Zioma, Armaitis 2025, arXiv:2511.12340) as their public code trains it
(a plain softmax, no temperature schedule, no Gumbel noise, no straight-through). Gate ``j`` of a
layer reading ``N`` wires has, for each of its two input slots, logits ``L_a[j], L_b[j]`` ``(N,)``:

    xa[j, i] = sum_k softmax(L_a[j] / T)_k x[k, i]        (the same for xb with L_b)
    y[j, i]  = c0 + c1 xa + c2 xb + c3 xa xb,   c from the gate weights (softmax or light)

with ``T`` = the model's ``connection_tau`` (1: the plain softmax). The Dirac start: every logit
``~ N(0, 0.01^2)`` (ties broken at random) plus ``DIRAC_LOGIT = 10`` on one wire per slot, the
wires dealt from repeated random permutations (`wirelab.logic.layers.make_connections`,
``"unique"``: every wire used about equally often, counts differing by at most one, ``a != b``),
so the chosen wire starts with weight ``e^10 / (e^10 + N - 1)`` (0.85 at ``N = 4,000``, 0.98 at
``N = 400``) and every other wire shares the rest and gets a gradient. Discretisation keeps each
slot's argmax wire (`WholeInputLogicDense.wiring`), an ordinary `DiscreteLayer`; the ``hard``
forward is exactly that layer.

Two stores (``connections`` in `wirelab.logic.spec`):

- ``"dirac"``, `WholeInputLogicDense`: the exact form above, float32 logits ``(2 out, N)``
  (rows ``[0, out)`` slot ``a``, ``[out, 2 out)`` slot ``b``). Training holds about
  ``TRAIN_BYTES_PER_LOGIT = 24`` bytes a logit (the logits, their gradient, AdamW's two moments,
  the softmax and its gradient), so `check_whole_input` refuses, before anything is allocated, a
  layer over ``WHOLE_INPUT_BUDGET`` (1 GiB) or over the memory available, with the estimate
  (8,000 gates reading 8,000 wires: 3.1 GB). The contraction is one dense product a step,
  ``(2 out, N) @ (N, B)``: ``impl="fast"`` runs it in BLAS (torch's ``mm``, the fastest dense
  contraction on a CPU; a numba loop would be several times slower) and the gate in the fused
  numba kernel `wirelab.logic.kernels.gather_gate` over the stacked rows; ``"reference"``
  sums the wires one at a time (`wirelab.logic.learned.select_reference`).
- ``"dirac-k"``, `DiracCandidatesDense` (`wirelab.logic.dirac_k`): the light store for wide
  layers, ``candidates`` wires per slot chosen at init (the Dirac wire and ``K - 1`` more).

Training forwards (`wirelab.logic.forwards`): ``soft`` is the form above; ``st``, ``cage``,
``gumbel`` read the chosen wire forward with the softmax's gradient backward, as
`wirelab.logic.learned.LearnedLogicDense` does over its candidates.

Example:
    >>> layer = WholeInputLogicDense(400, 1000, seed=0)
    >>> layer(torch.rand(400, 8)).shape
    torch.Size([1000, 8])
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from wirelab.cli_options import check_memory
from wirelab.errors import UsageError
from wirelab.logic.discrete import DiscreteLayer
from wirelab.logic.forwards import get_forward
from wirelab.logic.functional import gate_ids
from wirelab.logic.kernels import gather_gate
from wirelab.logic.layers import coeffs_for, init_logits, make_connections, reference_gate
from wirelab.logic.learned import check_learned_args, select_reference

DIRAC_LOGIT = 10.0  # the chosen wire's logit over the others' ~0: weight e^10 / (e^10 + N - 1)
DIRAC_NOISE = 0.01  # standard deviation of every logit at the start (a random tie-break)
TRAIN_BYTES_PER_LOGIT = 24  # float32 logits, gradient, 2 AdamW moments, softmax, its gradient
WHOLE_INPUT_BUDGET = 1 << 30  # bytes of training memory a whole-input layer may take
IMPLS = ("fast", "reference")


def dirac_logits(
    in_features: int, out_features: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The Dirac start: logits ``(2 out, in)`` float32 and the chosen wires ``a, b`` ``(out,)``.

    ``L ~ N(0, DIRAC_NOISE^2)``, then ``L[j, a_j] += DIRAC_LOGIT`` and
    ``L[out + j, b_j] += DIRAC_LOGIT``, ``a, b`` dealt by `make_connections` (``"unique"``).
    """
    a, b = make_connections(in_features, out_features, "unique", generator)
    logits = DIRAC_NOISE * torch.randn(2 * out_features, in_features, generator=generator)
    rows = torch.arange(2 * out_features)
    logits[rows, torch.cat([a, b])] += DIRAC_LOGIT
    return logits, a, b


def whole_input_bytes(in_features: int, out_features: int) -> int:
    """Training memory of a whole-input layer: ``24 x 2 out x in`` bytes (module docstring)."""
    return TRAIN_BYTES_PER_LOGIT * 2 * out_features * in_features


def check_whole_input(widths: list[tuple[int, int]]) -> None:
    """Refuse (one-line `UsageError`) whole-input layers ``(in, out)`` whose training memory
    is over `WHOLE_INPUT_BUDGET` each, or over the memory available now all together."""
    for n_in, n_out in widths:
        need = whole_input_bytes(n_in, n_out)
        if need > WHOLE_INPUT_BUDGET:
            raise UsageError(
                f"connections 'dirac' over all {n_in} inputs of {n_out} gates needs about "
                f"{need / 1e9:.1f} GB in training ({TRAIN_BYTES_PER_LOGIT} bytes a logit, "
                f"{2 * n_out} x {n_in} logits), over the {WHOLE_INPUT_BUDGET / 1e9:.1f} GB "
                "budget; use connections 'dirac-k' (candidates wires per input chosen at init)"
            )
    total = sum(whole_input_bytes(n_in, n_out) for n_in, n_out in widths)
    check_memory("connections 'dirac' (whole-input logits)", total)


class WholeInputLogicDense(nn.Module):
    """``out_features`` gates, each input a softmax over all ``in_features`` wires, Dirac
    start: ``(in, B)`` -> ``(out, B)``; see the module docstring."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        connection_tau: float = 1.0,
        init: str = "gaussian",
        seed: int = 0,
        impl: str = "fast",
        gate_param: str = "softmax",
    ) -> None:
        super().__init__()
        check_learned_args(out_features, connection_tau, impl, IMPLS)
        check_whole_input([(in_features, out_features)])
        gen = torch.Generator().manual_seed(seed)
        logits, _, _ = dirac_logits(in_features, out_features, gen)
        self.in_features, self.out_features, self.impl = in_features, out_features, impl
        self.connection_tau = float(connection_tau)
        self.conn = nn.Parameter(logits)  # (2 out, in): slot a rows, then slot b rows
        self.weight = nn.Parameter(init_logits((out_features,), init, gen, gate_param))

    def wiring(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Each slot's argmax wire ``a, b`` ``(out,)`` int64 (what discretisation keeps)."""
        idx = self.conn.detach().argmax(1)
        return idx[: self.out_features], idx[self.out_features :]

    def probabilities(self) -> torch.Tensor:
        """``softmax(L / T)`` over the wires, ``(2 out, in)``."""
        return torch.softmax(self.conn / self.connection_tau, dim=1)

    def _weights(self, mode: str) -> torch.Tensor:
        """Selection weights ``(2 out, in)`` of a training mode: the softmax (``soft``) or the
        chosen wire's one-hot forward with the softmax's gradient, ``onehot + (p - p.detach())``
        (``cage``, ``gumbel``: the chosen wire alone gets the input gradient)."""
        idx, p = get_forward(mode).select(self.conn, self.connection_tau)
        if idx is None:
            return p
        hard = torch.zeros_like(p).scatter_(1, idx[:, None], 1.0)
        return hard + (p - p.detach())

    def _contract(self, x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        """``p @ x``: ``(2 out, in)`` weights, ``(in, B)`` wires -> ``(2 out, B)``."""
        if self.impl == "reference":
            cand = torch.arange(self.in_features).expand(p.shape[0], -1)
            return select_reference(x, cand, p)
        return p @ x

    def forward(self, x: torch.Tensor, mode: str = "soft") -> torch.Tensor:
        if x.shape[0] != self.in_features:
            raise UsageError(f"expected {self.in_features} input rows, got {x.shape[0]}")
        fwd = get_forward(mode)  # unknown modes: one-line error
        n = self.out_features
        if mode == "hard":  # exactly the discrete layer
            a, b = self.wiring()
            return gather_gate(x, a, b, coeffs_for(self.weight, "hard"))
        if fwd.soft_wire_inputs:  # st: the chosen wires forward, the soft mixture's gradient
            soft = self._contract(x, self.probabilities())
            a, b = self.wiring()
            xab = x[torch.cat([a, b])] + (soft - soft.detach())
        else:
            xab = self._contract(x, self._weights(mode))
        if self.impl == "reference" and mode == "soft":
            return reference_gate(xab[:n], xab[n:], self.weight, mode)
        rows = torch.arange(n)
        return gather_gate(xab, rows, rows + n, coeffs_for(self.weight, mode))  # (out, B)

    def gates(self) -> np.ndarray:
        """Discrete gate per neuron ``(out,)`` uint8."""
        return gate_ids(self.weight).cpu().numpy().astype(np.uint8)

    @torch.no_grad()
    def discretize(self) -> list[DiscreteLayer]:
        """The layer as it ends: each slot's argmax wire and each neuron's gate."""
        a, b = self.wiring()
        return [DiscreteLayer(a.cpu().numpy(), b.cpu().numpy(), self.gates())]

    def extra_repr(self) -> str:
        return f"{self.in_features} -> {self.out_features}, softmax over all inputs (Dirac start)"
