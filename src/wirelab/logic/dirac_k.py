"""The Dirac start over ``K`` candidates a slot: the memory-light store of the whole-input wiring.

`wirelab.logic.dirac.WholeInputLogicDense` holds a logit for every wire of the layer input, 24
bytes a logit in training, too much for wide layers (8,000 gates reading 8,000 wires: 3.1 GB).
``connections = "dirac-k"`` keeps ``K`` = ``candidates`` wires per slot, chosen at init: column 0
is the Dirac wire (dealt by `wirelab.logic.layers.make_connections` as in the whole-input layer,
every wire about equally often, ``a != b``), columns ``1..K-1`` more wires dealt by
`wirelab.logic.learned.make_candidates`; a row's ``2K`` wires are distinct (an entry that repeats
the row's Dirac wires is redrawn among the wires the row lacks). The connection logits start as

    l[j, k] ~ N(0, 0.01^2),   l[j, 0] += 10

and train as `LearnedLogicDense`'s do (the same fused numba kernel, forwards, annealing and
discretisation: each slot's argmax candidate), so the layer starts as random fixed wiring that
can move among its ``K`` candidates. Memory: ``2 K`` logits and indices a gate, as ``learned``.

Example:
    >>> DiracCandidatesDense(400, 1000, 16, seed=0).conn_a.argmax(1).eq(0).all().item()
    True
"""

from __future__ import annotations

import torch

from wirelab.logic.dirac import DIRAC_LOGIT, DIRAC_NOISE
from wirelab.logic.layers import make_connections
from wirelab.logic.learned import LearnedLogicDense, make_candidates


def dirac_candidates(
    in_features: int, out_features: int, k: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Candidates ``cand_a, cand_b`` ``(out, K')``, ``K' = min(K, in // 2)``: column 0 the
    Dirac wires, the rest dealt by `make_candidates`, all ``2K'`` of a row distinct."""
    k = max(1, min(int(k), in_features // 2))
    a, b = make_connections(in_features, out_features, "unique", generator)
    if k == 1:
        return a[:, None].clone(), b[:, None].clone()
    more_a, more_b = make_candidates(in_features, out_features, k - 1, generator)
    cand = torch.cat([a[:, None], more_a, b[:, None], more_b], 1)  # (out, 2K)
    first = torch.stack([a, b], 1)  # (out, 2): the Dirac wires
    clash = (cand[:, :, None] == first[:, None, :]).any(2)
    clash[:, 0] = False
    clash[:, k] = False
    for j in torch.nonzero(clash.any(1)).flatten().tolist():
        row = cand[j].tolist()
        for m in torch.nonzero(clash[j]).flatten().tolist():
            taken = set(row)
            v = row[m]
            while v in taken:
                v = int(torch.randint(0, in_features, (1,), generator=generator))
            row[m] = v
        cand[j] = torch.tensor(row)
    return cand[:, :k].contiguous(), cand[:, k:].contiguous()


class DiracCandidatesDense(LearnedLogicDense):
    """`LearnedLogicDense` with Dirac-started candidates (module docstring):
    ``(in, B)`` -> ``(out, B)``."""

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
        super().__init__(
            in_features, out_features, candidates, connection_tau, init, seed, impl, gate_param
        )
        gen = torch.Generator().manual_seed(seed * 7919 + 2)
        cand_a, cand_b = dirac_candidates(in_features, out_features, candidates, gen)
        self.cand_a.copy_(cand_a)
        self.cand_b.copy_(cand_b)
        with torch.no_grad():
            for conn in (self.conn_a, self.conn_b):
                conn.copy_(DIRAC_NOISE * torch.randn(conn.shape, generator=gen))
                conn[:, 0] += DIRAC_LOGIT

    def extra_repr(self) -> str:
        k = self.cand_a.shape[1]
        return f"{self.in_features} -> {self.out_features}, candidates={k} (Dirac start)"
