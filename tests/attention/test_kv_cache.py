from __future__ import annotations

import pytest
import torch

from wirelab.attention import KVCache
from wirelab.errors import UsageError


def test_grows_by_chunks_and_keeps_contents():
    cache = KVCache(chunk=8)
    ks = [torch.randn(2, 3, t, 4) for t in (5, 1, 1, 6, 1)]
    vs = [torch.randn(2, 3, t, 4) for t in (5, 1, 1, 6, 1)]
    for k, v in zip(ks, vs, strict=True):
        k_all, v_all = cache.append(k, v)
    assert torch.equal(k_all, torch.cat(ks, 2)) and torch.equal(v_all, torch.cat(vs, 2))
    assert cache.length == 14 and cache.capacity == 16 and cache.grows == 2
    assert cache.memory_bytes() == 2 * 2 * 3 * 16 * 4 * 4
    assert cache.memory_bytes() == KVCache.size_for(2, 3, 16, 4, torch.float32)
    cache.reset()
    assert cache.length == 0 and cache.capacity == 16


def test_gqa_cache_memory_ratio():
    caches = {}
    for kv in (8, 2, 1):
        c = KVCache(chunk=64)
        c.append(torch.randn(1, kv, 100, 16), torch.randn(1, kv, 100, 16))
        caches[kv] = c.memory_bytes()
    assert caches[2] / caches[8] == 2 / 8 and caches[1] / caches[8] == 1 / 8


def test_cache_errors():
    c = KVCache(chunk=4, max_length=6)
    c.append(torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4))
    assert c.capacity == 6
    with pytest.raises(UsageError, match="full"):
        c.append(torch.randn(1, 2, 2, 4), torch.randn(1, 2, 2, 4))
    with pytest.raises(UsageError, match="cache holds"):
        c.append(torch.randn(1, 3, 1, 4), torch.randn(1, 3, 1, 4))
    with pytest.raises(UsageError, match="chunk"):
        KVCache(chunk=0)
