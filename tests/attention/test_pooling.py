from __future__ import annotations

import pytest
import torch

from wirelab.attention import AttentionPool, MeanPool
from wirelab.errors import UsageError


def _set(b=4, t=9, c=16):
    torch.manual_seed(0)
    x = torch.randn(b, t, c)
    mask = torch.ones(b, t, dtype=torch.bool)
    mask[1, 5:] = False
    mask[3, 1:] = False
    return x, mask


def test_mean_pool_is_masked_mean_with_uniform_weights():
    x, mask = _set()
    pooled, w = MeanPool(16)(x, mask)
    assert w.shape == (4, 1, 1, 9)
    for b in range(4):
        n = int(mask[b].sum())
        assert torch.allclose(pooled[b], x[b, mask[b]].mean(0), atol=1e-6)
        assert torch.allclose(w[b, 0, 0, mask[b]], torch.full((n,), 1 / n))
        assert (w[b, 0, 0, ~mask[b]] == 0).all()


@pytest.mark.parametrize(("heads", "queries"), [(1, 1), (4, 1), (2, 3)])
def test_attention_pool_weights_sum_to_one_over_unmasked(heads, queries):
    x, mask = _set()
    pool = AttentionPool(16, num_heads=heads, num_queries=queries)
    pooled, w = pool(x, mask)
    assert pooled.shape == (4, 16 * queries) and pool.out_dim == 16 * queries
    assert w.shape == (4, heads, queries, 9)
    assert torch.allclose(w.sum(-1), torch.ones(4, heads, queries), atol=1e-6)
    assert (w.masked_select(~mask[:, None, None, :]) == 0).all()
    # masked elements do not influence the result
    x2 = x.clone()
    x2[~mask] = 100.0
    assert torch.allclose(pool(x2, mask)[0], pooled, atol=1e-5)


def test_attention_pool_with_single_key_is_that_value():
    pool = AttentionPool(8, num_heads=2)
    x = torch.randn(1, 1, 8)
    pooled, w = pool(x)
    v_only, _ = pool.attn(x, context=x)  # one key: output is its projected value, any query
    assert torch.allclose(w, torch.ones(1, 2, 1, 1))
    assert torch.allclose(pooled, v_only[:, 0], atol=1e-6)


def test_pooling_errors():
    with pytest.raises(UsageError, match="x must be"):
        MeanPool(8)(torch.randn(2, 3, 4))
    with pytest.raises(UsageError, match="mask must be"):
        AttentionPool(8)(torch.randn(2, 3, 8), torch.ones(2, 4, dtype=torch.bool))
