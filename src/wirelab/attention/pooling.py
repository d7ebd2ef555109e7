"""Set pooling behind one interface: ``pool(x, mask) -> (pooled, weights)``.

x: (B, T, C) set elements, mask: (B, T) bool (True = a real element), pooled: (B, out_dim),
weights: (B, H, Q, T), non-negative and summing to 1 over the unmasked positions of each row.

- `MeanPool`: pooled = sum_t w_t x_t with w_t = 1 / #unmasked (uniform weights; H = Q = 1).
- `AttentionPool` (Lee et al. 2019 "Set Transformer" PMA; Ilse et al. 2018 attention-based MIL):
  Q learned query vectors attend over the set with H heads,
  pooled_q = MHA(query_q, x, x), concatenated over the Q queries (out_dim = Q * C).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from wirelab.attention.mha import MultiHeadAttention
from wirelab.errors import UsageError

__all__ = ["AttentionPool", "MeanPool"]


def _check(x: Tensor, mask: Tensor | None, dim: int) -> None:
    if x.dim() != 3 or x.shape[-1] != dim:
        raise UsageError(f"x must be (batch, set size, {dim}), got shape {tuple(x.shape)}")
    if mask is not None and (mask.dtype != torch.bool or mask.shape != x.shape[:2]):
        raise UsageError(
            f"mask must be a boolean (batch, set size) = {tuple(x.shape[:2])} tensor, "
            f"got {mask.dtype} {tuple(mask.shape)}"
        )


class MeanPool(nn.Module):
    """Average of the unmasked elements: ``pooled = sum_t w_t x_t``, ``w_t = 1 / #unmasked``.

    ``forward(x (B, T, C), mask (B, T) bool or None) -> (pooled (B, C), weights (B, 1, 1, T))``;
    the weights are uniform over the unmasked elements (0 if none).

    Example:
        ```python
        pooled, w = MeanPool(16)(torch.randn(2, 5, 16))  # (2, 16), (2, 1, 1, 5)
        ```
    """

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim
        self.out_dim = dim

    def forward(self, x: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        _check(x, mask, self.dim)
        b, t, _ = x.shape
        m = torch.ones(b, t, dtype=x.dtype, device=x.device) if mask is None else mask.to(x.dtype)
        w = m / m.sum(dim=1, keepdim=True).clamp_min(1.0)  # (B, T)
        pooled = torch.einsum("bt,btc->bc", w, x)  # (B, C)
        return pooled, w[:, None, None, :]


class AttentionPool(nn.Module):
    """``num_queries`` learned queries attend over the set with ``num_heads`` heads (PMA).

    ``pooled_q = MHA(query_q, x, x)``, concatenated over the queries:
    ``forward(x (B, T, C), mask (B, T) bool or None) -> (pooled (B, num_queries * C),
    weights (B, num_heads, num_queries, T))``; each weight row sums to 1 over the unmasked
    elements.

    Example:
        ```python
        pool = AttentionPool(16, num_heads=4)
        mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])  # second set: 3 elements
        pooled, w = pool(torch.randn(2, 5, 16), mask)  # (2, 16), (2, 4, 1, 5)
        ```
    """

    def __init__(
        self, dim: int, num_heads: int = 1, num_queries: int = 1, *, dropout: float = 0.0
    ) -> None:
        super().__init__()
        if num_queries < 1:
            raise UsageError(f"num_queries must be >= 1, got {num_queries}")
        self.dim, self.num_heads, self.num_queries = dim, num_heads, num_queries
        self.out_dim = dim * num_queries
        self.queries = nn.Parameter(torch.randn(num_queries, dim) * dim**-0.5)  # (Q, C)
        self.attn = MultiHeadAttention(dim, num_heads, dropout=dropout)

    def forward(self, x: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        _check(x, mask, self.dim)
        b = x.shape[0]
        q = self.queries.unsqueeze(0).expand(b, -1, -1)  # (B, Q, C)
        m = None if mask is None else mask[:, None, None, :]  # (B, 1, 1, T)
        pooled, w = self.attn(q, context=x, mask=m, return_weights=True)  # (B, Q, C), (B,H,Q,T)
        assert w is not None
        return pooled.reshape(b, self.out_dim), w
