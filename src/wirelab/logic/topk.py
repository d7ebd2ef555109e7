"""Top-K connectivity over the whole layer input: every wire has a learnable logit, a gate input
reads the ``K`` wires with the largest logits.

After LILogicNet (Fojcik, Zioma, Armaitis 2025, arXiv:2511.12340: the connectome as a
differentiable object, Top-K connectivity; 98.45% on MNIST with 8,000 gates) and Mommen et al.
2025 (arXiv:2507.06173: a probability distribution over the connections of each gate input, > 98%
on MNIST with 8,000 gates when all connections are trained); the CPU form is ours. Gate input ``a``
of gate ``j`` has logits ``L_a[j]`` ``(N_in,)`` over *every* wire of the layer input (and ``L_b``
the same); the forward reads

    S_a[j] = top-K indices of L_a[j]               (K wires, disjoint from S_b[j])
    xa[j, i] = sum_{k in S_a[j]} softmax(L_a[j, S_a[j]] / T)_k x[k, i]

so a wire outside the top K has no path to the loss and gets no gradient: the gradient of the
dense Top-K layer lives on the ``(out, K)`` selected logits. That is what this layer stores as
parameters (`LearnedLogicDense`'s ``conn_a, conn_b`` over the candidates ``cand_a, cand_b``), with
the dense logits ``full_a, full_b`` ``(out, N_in)`` as buffers holding every other wire's logit.
`TopKLogicDense.rewire` re-selects the top K of every row: the selected logits are written back,
then, with the insiders sorted ascending and the best outsiders descending, slot ``m``'s wire is
swapped while ``outsider_m > insider_m`` (the merge that yields exactly the top ``K``). A swapped
slot takes the outsider's logit, and `rewire_model` zeroes its AdamW moments: a dense AdamW holds
zero moments for a wire that never had a gradient, so the incoming wire's first update is the one
the dense layer takes. Rewiring every step (``rewire_every = 1``) is then the dense Top-K layer
except that an evicted wire's logit stays where it was (a dense AdamW would move it on by its
decaying momentum); every ``R`` steps amortises the ``(out, N_in)`` sort to ``1/R`` per step.

Initial logits: ``0`` on ``K`` random candidates per input (disjoint for ``a`` and ``b``, as
`make_candidates` deals them), ``-10^-3 u`` (``u ~ U(0, 1)``) elsewhere: every wire about equally
likely, ties broken at random. A candidate leaves when its logit falls below the best unused
wire's (about 0), and the unused wires enter in a random order. Discretisation and the hard
forward take each input's argmax candidate (the argmax of the full row after a rewire), so the
discrete format is unchanged.
"""

from __future__ import annotations

import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic.learned import LearnedLogicDense

TIE_BREAK = 1e-3  # spread of the initial logits of the wires outside the first candidates
MOMENTS = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")  # AdamW's per-parameter state


class TopKLogicDense(LearnedLogicDense):
    """``out`` gates whose inputs are the top ``k`` of logits over all ``in`` wires:
    ``(in, B)`` -> ``(out, B)``; see the module docstring."""

    full_a: torch.Tensor  # (out, in) buffer: connection logits of every wire, input a
    full_b: torch.Tensor  # (out, in) buffer, input b

    def __init__(
        self,
        in_features: int,
        out_features: int,
        k: int = 16,
        connection_tau: float = 1.0,
        init: str = "gaussian",
        seed: int = 0,
        impl: str = "fast",
        gate_param: str = "softmax",
        rewire_every: int = 100,
    ) -> None:
        super().__init__(in_features, out_features, k, connection_tau, init, seed, impl, gate_param)
        if rewire_every < 1:
            raise UsageError("rewire_every must be at least 1")
        self.rewire_every = int(rewire_every)
        gen = torch.Generator().manual_seed(seed * 7919 + 1)
        for name, cand in (("full_a", self.cand_a), ("full_b", self.cand_b)):
            full = -TIE_BREAK * torch.rand(out_features, in_features, generator=gen)
            self.register_buffer(name, full.scatter_(1, cand, 0.0))

    @torch.no_grad()
    def rewire(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Re-select the top ``K`` wires of every gate input; the swapped slots ``(out, K)`` bool
        of ``a`` and ``b``. ``a``'s and ``b``'s candidates stay disjoint: ``a`` takes the top
        ``K`` of the wires ``b`` does not hold, then ``b`` of those ``a`` now does not hold (a
        wire ``b`` lets go of is open to ``a`` at the next rewire)."""
        changed = []
        for cand, conn, full, other in (
            (self.cand_a, self.conn_a, self.full_a, self.cand_b),
            (self.cand_b, self.conn_b, self.full_b, self.cand_a),
        ):
            full.scatter_(1, cand, conn.detach())
            outside = full.scatter(1, torch.cat([cand, other], 1), float("-inf"))
            out_v, out_i = outside.topk(cand.shape[1], dim=1)  # best outsiders, descending
            in_v, order = conn.detach().sort(dim=1)  # insiders, ascending
            rows, m = torch.nonzero(out_v > in_v, as_tuple=True)
            slot = order[rows, m]
            cand[rows, slot] = out_i[rows, m]
            conn.data[rows, slot] = out_v[rows, m]
            mask = torch.zeros_like(cand, dtype=torch.bool)
            mask[rows, slot] = True
            changed.append(mask)
        return changed[0], changed[1]

    def extra_repr(self) -> str:
        k = self.cand_a.shape[1]
        every = self.rewire_every
        return f"{self.in_features} -> {self.out_features}, top-{k} of all, rewired every {every}"


def rewire_model(model: nn.Module, opt: torch.optim.Optimizer | None, step: int) -> int:
    """Before optimiser step ``step`` (0-based): rewire every `TopKLogicDense` whose
    ``rewire_every`` divides ``step`` (never at step 0) and zero the AdamW moments of the swapped
    slots; the number of swapped wires."""
    swapped = 0
    if step <= 0:
        return 0
    for m in model.modules():
        if isinstance(m, TopKLogicDense) and step % m.rewire_every == 0:
            for param, mask in zip((m.conn_a, m.conn_b), m.rewire(), strict=True):
                swapped += int(mask.sum())
                state = opt.state.get(param, {}) if opt is not None else {}
                for key in MOMENTS:
                    if key in state:
                        state[key][mask] = 0.0
    return swapped
