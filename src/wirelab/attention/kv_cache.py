"""A key/value cache for incremental decoding (as in Llama's reference ``model.py``).

Keys and values of past positions are kept in preallocated tensors of shape (B, Hkv, capacity, D);
decoding one token appends one column and attends over the first ``length`` columns, so a step costs
O(T d) instead of recomputing the whole prefix (O(T d^2 + T^2 d)). The capacity grows by whole
chunks (``chunk`` positions at a time, copying once per chunk), so appends are amortised
O(1) copies.
With grouped-query attention the cache holds only ``Hkv`` heads: its memory is ``Hkv / H`` of MHA's.
"""

from __future__ import annotations

import torch
from torch import Tensor

from wirelab.errors import UsageError

__all__ = ["KVCache"]


class KVCache:
    """Preallocated, chunk-growing cache of keys and values (B, Hkv, length, D) for one layer.

    Pass it to `MultiHeadAttention` (``cache=``) to decode token by token: each call appends
    its keys and values and attends over every cached position. ``max_length`` bounds it (a
    one-line error beyond); ``append(k, v)`` is the low-level call.

    Example:
        ```python
        mha, cache = MultiHeadAttention(32, num_heads=4, num_kv_heads=2), KVCache()
        out, _ = mha(torch.randn(1, 6, 32), causal=True, cache=cache)  # the prompt
        out, _ = mha(torch.randn(1, 1, 32), causal=True, cache=cache)  # one new token
        print(cache.length, cache.k.shape)  # 7, (1, 2, 256, 8): Hkv = 2 heads cached
        ```
    """

    def __init__(self, chunk: int = 256, max_length: int | None = None) -> None:
        if chunk < 1:
            raise UsageError(f"chunk must be >= 1, got {chunk}")
        if max_length is not None and max_length < 1:
            raise UsageError(f"max_length must be >= 1 (or None: unbounded), got {max_length}")
        self.chunk = chunk
        self.max_length = max_length
        self.k: Tensor | None = None  # (B, Hkv, capacity, D)
        self.v: Tensor | None = None  # (B, Hkv, capacity, Dv)
        self.length = 0
        self.grows = 0  # number of (re)allocations, for inspection

    @property
    def capacity(self) -> int:
        return 0 if self.k is None else self.k.shape[2]

    def _reserve(self, needed: int, like_k: Tensor, like_v: Tensor) -> None:
        if self.max_length is not None and needed > self.max_length:
            raise UsageError(f"KV cache full: {needed} positions > max_length={self.max_length}")
        if needed <= self.capacity:
            return
        cap = -(-needed // self.chunk) * self.chunk  # round up to whole chunks
        if self.max_length is not None:
            cap = min(cap, self.max_length)
        b, h, _, d = like_k.shape
        k = like_k.new_empty(b, h, cap, d)
        v = like_v.new_empty(b, h, cap, like_v.shape[-1])
        if self.k is not None and self.v is not None and self.length:
            k[:, :, : self.length] = self.k[:, :, : self.length]
            v[:, :, : self.length] = self.v[:, :, : self.length]
        self.k, self.v = k, v
        self.grows += 1

    def append(self, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Store k, v (B, Hkv, T_new, D) after the cached positions; return views of all of them."""
        if k.dim() != 4 or v.dim() != 4 or k.shape[:3] != v.shape[:3]:
            raise UsageError(
                f"cache expects k, v of shape (B, Hkv, T, D) with equal (B, Hkv, T); "
                f"got {tuple(k.shape)} and {tuple(v.shape)}"
            )
        if self.k is not None and (
            k.shape[:2] != self.k.shape[:2] or k.shape[3] != self.k.shape[3]
        ):
            raise UsageError(
                f"cache holds (B, Hkv, *, D) = {tuple(self.k.shape[:2])}+({self.k.shape[3]},), "
                f"got {tuple(k.shape)}"
            )
        t = k.shape[2]
        self._reserve(self.length + t, k, v)
        assert self.k is not None and self.v is not None
        self.k[:, :, self.length : self.length + t] = k
        self.v[:, :, self.length : self.length + t] = v
        self.length += t
        return self.k[:, :, : self.length], self.v[:, :, : self.length]

    def memory_bytes(self) -> int:
        """Bytes allocated for keys and values (the whole capacity, not just the used part)."""
        if self.k is None or self.v is None:
            return 0
        return self.k.numel() * self.k.element_size() + self.v.numel() * self.v.element_size()

    def reset(self) -> None:
        """Forget the cached positions (keeps the allocation)."""
        self.length = 0

    def reorder(self, index: Tensor) -> None:
        """Select batch rows (e.g. for beam search): index (B',) into the batch."""
        if self.k is not None and self.v is not None:
            self.k, self.v = self.k.index_select(0, index), self.v.index_select(0, index)

    def __repr__(self) -> str:
        return (
            f"KVCache(length={self.length}, capacity={self.capacity}, chunk={self.chunk}, "
            f"memory={self.memory_bytes()} bytes)"
        )

    @staticmethod
    def size_for(batch: int, kv_heads: int, length: int, head_dim: int, dtype: torch.dtype) -> int:
        """Bytes for keys plus values of ``length`` positions (analytic, for planning)."""
        return (
            2 * batch * kv_heads * length * head_dim * torch.empty((), dtype=dtype).element_size()
        )
