"""Learned connectivity: each gate learns its two inputs among ``K`` candidates.

After LILogicNet (Fojcik, Zioma, Armaitis 2025, arXiv:2511.12340: the connectome as a
differentiable object with Top-K connectivity; 98.45% on MNIST with 8,000 gates); the form here
is our own. Gate ``j`` of a layer has, for each of its inputs, ``K`` fixed candidate wires
``cand_a[j]``, ``cand_b[j]`` ``(K,)`` (``2K`` distinct wires per gate, drawn once) and learnable
connection logits ``l_a[j]``, ``l_b[j]`` ``(K,)`` (zeros at the start: every candidate equally
likely). With the connection temperature ``T``:

    soft:  xa[j, i] = sum_k softmax(l_a[j] / T)_k x[cand_a[j, k], i]       (same for xb)
    hard:  xa[j, i] = x[a_j, i],   a_j = cand_a[j, argmax_k l_a[j, k]]
    st:    the soft form with weights onehot(a_j) + (p - p.detach()): the chosen wire's values
           forward, the soft weights' gradient backward (only the chosen wire gets dL/dx);
           ``gumbel`` and ``cage`` choose and differentiate as `wirelab.logic.forwards` says
    y[j, i] = c0 + c1 xa + c2 xb + c3 xa xb,   c from the gate weights (softmax or light)

``x`` ``(N_in, B)`` -> ``y`` ``(n, B)``, feature-major as every logic layer. Discretisation keeps
the argmax candidate, so a learned layer ends as fixed indices ``a, b`` in an ordinary
`DiscreteLayer`: the discrete network format (and C, Verilog, proofs, FPGA flow) is unchanged,
and the ``hard`` forward is exactly that network. The gates' two inputs are always different
wires (the candidate sets of ``a`` and ``b`` are disjoint).

Three implementations of every training forward: ``impl="reference"`` (an explicit loop over
candidates, then the 16-way mixture or light expectation), ``"torch"`` (all ``K`` candidates
gathered at once, ``(n, K, B)``, contracted by one batched product; any device) and ``"fast"``
(the fused numba kernel of `wirelab.logic.learned_kernels` on CPU, else the torch form).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic.forwards import get_forward
from wirelab.logic.functional import gate_ids, gate_poly
from wirelab.logic.kernels import gather_gate
from wirelab.logic.layers import coeffs_for, init_logits, reference_gate
from wirelab.logic.learned_kernels import learned_gate, numba_ok

IMPLS = ("fast", "torch", "reference")


def make_candidates(
    in_features: int, out_features: int, k: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Candidate wires ``cand_a, cand_b`` ``(out, K')`` int64, ``K' = min(K, in // 2)``.

    Each of the ``2K'`` candidate columns is dealt from repeated random permutations of the
    inputs (so every input is a candidate about equally often), then the few rows holding a
    wire twice are repaired by redrawing those entries among the wires the row lacks.
    """
    if in_features < 2:
        raise UsageError("a logic layer needs at least 2 inputs")
    k = max(1, min(int(k), in_features // 2))
    slots = 2 * k * out_features
    reps = -(-slots // in_features)
    dealt = torch.cat([torch.randperm(in_features, generator=generator) for _ in range(reps)])
    cand = dealt[:slots].reshape(2 * k, out_features).t().contiguous()  # (out, 2K)
    srt = cand.sort(1).values
    bad = torch.nonzero((srt[:, 1:] == srt[:, :-1]).any(1)).flatten().tolist()
    for j in bad:
        row = cand[j].tolist()
        seen: set[int] = set()
        for m, v in enumerate(row):
            while v in seen:
                v = int(torch.randint(0, in_features, (1,), generator=generator))
            row[m] = v
            seen.add(v)
        cand[j] = torch.tensor(row)
    return cand[:, :k].contiguous(), cand[:, k:].contiguous()


def select_reference(x: torch.Tensor, cand: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """Readable soft selection: ``sum_k p[:, k] x[cand[:, k]]``; ``x`` (N, B), ``cand, p``
    (n, K) -> (n, B)."""
    out = torch.zeros(cand.shape[0], x.shape[1], dtype=x.dtype, device=x.device)
    for k in range(cand.shape[1]):
        out = out + p[:, k : k + 1] * x[cand[:, k]]
    return out


def select_fast(x: torch.Tensor, cand: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """The same as `select_reference`: one gather ``(n, K, B)`` and one batched product."""
    n, k = cand.shape
    xs = x.index_select(0, cand.reshape(-1)).view(n, k, x.shape[1])  # (n, K, B)
    return torch.bmm(p.unsqueeze(1), xs).squeeze(1)  # (n, B)


def check_learned_args(
    out_features: int, connection_tau: float, impl: str, impls: tuple[str, ...] = IMPLS
) -> None:
    """The arguments every learned-wiring layer checks: at least one gate, a positive
    connection temperature, an implementation of ``impls`` (the layer's own); one-line
    `UsageError` otherwise."""
    if out_features < 1:
        raise UsageError("a logic layer needs at least one gate")
    if not connection_tau > 0:
        raise UsageError("connection_tau must be positive")
    if impl not in impls:
        raise UsageError(f"unknown impl {impl!r}; use one of {impls}")


class LearnedLogicDense(nn.Module):
    """``out_features`` gates whose inputs are learned among ``candidates`` wires each:
    ``(in, B)`` -> ``(out, B)``; see the module docstring."""

    cand_a: torch.Tensor  # (out, K) buffer
    cand_b: torch.Tensor  # (out, K) buffer

    def __init__(
        self,
        in_features: int,
        out_features: int,
        candidates: int = 16,
        connection_tau: float = 1.0,
        init: str = "gaussian",
        seed: int = 0,
        impl: str = "fast",
        gate_param: str = "softmax",
    ) -> None:
        super().__init__()
        check_learned_args(out_features, connection_tau, impl)
        gen = torch.Generator().manual_seed(seed)
        cand_a, cand_b = make_candidates(in_features, out_features, candidates, gen)
        self.in_features, self.out_features, self.impl = in_features, out_features, impl
        self.connection_tau = float(connection_tau)
        self.register_buffer("cand_a", cand_a)
        self.register_buffer("cand_b", cand_b)
        k = cand_a.shape[1]
        self.conn_a = nn.Parameter(torch.zeros(out_features, k))  # (out, K) connection logits
        self.conn_b = nn.Parameter(torch.zeros(out_features, k))
        self.weight = nn.Parameter(init_logits((out_features,), init, gen, gate_param))

    def wiring(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The chosen inputs ``a, b`` ``(out,)``: each gate's argmax candidate."""
        a = self.cand_a.gather(1, self.conn_a.detach().argmax(1, keepdim=True)).squeeze(1)
        b = self.cand_b.gather(1, self.conn_b.detach().argmax(1, keepdim=True)).squeeze(1)
        return a, b

    def probabilities(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Selection weights ``softmax(l / T)`` of the candidates, ``(out, K)`` each."""
        pa = torch.softmax(self.conn_a / self.connection_tau, dim=1)
        pb = torch.softmax(self.conn_b / self.connection_tau, dim=1)
        return pa, pb

    def _weights(self, mode: str) -> tuple[torch.Tensor, torch.Tensor]:
        """Selection weights ``pa, pb`` ``(out, K)`` under ``mode``: the softmax (``soft``), or
        (``st``, ``gumbel``, ``cage``) the chosen candidate's one-hot forward with the soft
        weights' gradient, ``onehot + (p - p.detach())``, so the hard forward reads exactly the
        chosen wire and only that wire gets the input gradient."""
        choose = get_forward(mode).select
        out = []
        for logits in (self.conn_a, self.conn_b):
            idx, p = choose(logits, self.connection_tau)
            if idx is not None:
                hard = torch.nn.functional.one_hot(idx, p.shape[1]).to(p.dtype)
                p = hard + (p - p.detach())
            out.append(p)
        return out[0], out[1]

    def _forward_soft_wires(self, x: torch.Tensor, mode: str) -> torch.Tensor:
        """Straight-through with the soft selection's gradient to every candidate input:
        ``xa = x[a] + (xa_soft - xa_soft.detach())`` (same for ``xb``); no fused kernel."""
        select = select_reference if self.impl == "reference" else select_fast
        pa, pb = self.probabilities()
        a, b = self.wiring()
        xa, xb = select(x, self.cand_a, pa), select(x, self.cand_b, pb)
        xa = x[a] + (xa - xa.detach())
        xb = x[b] + (xb - xb.detach())
        if self.impl == "reference":
            return reference_gate(xa, xb, self.weight, mode)
        return gate_poly(xa, xb, coeffs_for(self.weight, mode))  # (out, B)

    def forward(self, x: torch.Tensor, mode: str = "soft") -> torch.Tensor:
        if x.shape[0] != self.in_features:
            raise UsageError(f"expected {self.in_features} input rows, got {x.shape[0]}")
        get_forward(mode)  # unknown modes: one-line error
        if mode == "hard":  # exactly the discrete layer
            a, b = self.wiring()
            return gather_gate(x, a, b, coeffs_for(self.weight, "hard"))
        if get_forward(mode).soft_wire_inputs:
            return self._forward_soft_wires(x, mode)
        pa, pb = self._weights(mode)  # noise, when the mode draws any: a, b, then the gates
        c = coeffs_for(self.weight, mode)
        if self.impl == "fast" and numba_ok(x):
            return learned_gate(x, self.cand_a, pa, self.cand_b, pb, c)
        select = select_reference if self.impl == "reference" else select_fast
        xa, xb = select(x, self.cand_a, pa), select(x, self.cand_b, pb)
        if self.impl == "reference" and mode == "soft":
            return reference_gate(xa, xb, self.weight, mode)
        return gate_poly(xa, xb, c)  # (out, B)

    def gates(self) -> np.ndarray:
        """Discrete gate per neuron ``(out,)`` uint8."""
        return gate_ids(self.weight).cpu().numpy().astype(np.uint8)

    def extra_repr(self) -> str:
        k = self.cand_a.shape[1]
        return f"{self.in_features} -> {self.out_features}, candidates={k}"
