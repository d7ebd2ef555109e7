from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from wirelab.attention import KVCache, MultiHeadAttention, causal_mask, from_torch_mask
from wirelab.errors import UsageError


def _pair(dim=32, heads=4, seed=0):
    torch.manual_seed(seed)
    ref = nn.MultiheadAttention(dim, heads, batch_first=True)
    nn.init.normal_(ref.in_proj_bias)  # nonzero biases so their copying is tested
    nn.init.normal_(ref.out_proj.bias)
    return ref, MultiHeadAttention.from_torch(ref)


def test_self_attention_equals_torch():
    ref, ours = _pair()
    x = torch.randn(3, 9, 32)
    want, _ = ref(x, x, x, need_weights=False)
    got, _ = ours(x)
    assert torch.allclose(got, want, atol=1e-5)
    want, w_want = ref(x, x, x, need_weights=True, average_attn_weights=False)
    got, w_got = ours(x, return_weights=True)
    assert w_got is not None
    assert torch.allclose(got, want, atol=1e-5)
    assert torch.allclose(w_got, w_want, atol=1e-5)


def test_cross_attention_with_masks_equals_torch():
    ref, ours = _pair()
    x, ctx = torch.randn(3, 6, 32), torch.randn(3, 10, 32)
    pad = torch.zeros(3, 10, dtype=torch.bool)
    pad[1, 7:] = True  # torch: True = ignore
    pad[2, 4:] = True
    attn = torch.rand(6, 10) > 0.7
    attn[:, 0] = False
    want, w_want = ref(
        x, ctx, ctx, key_padding_mask=pad, attn_mask=attn, average_attn_weights=False
    )
    mask = from_torch_mask(attn, pad)
    for rw in (False, True):
        got, w = ours(x, context=ctx, mask=mask, return_weights=rw)
        assert torch.allclose(got, want, atol=1e-5)
        if rw:
            assert w is not None and torch.allclose(w, w_want, atol=1e-5)


def test_causal_self_attention_equals_torch():
    ref, ours = _pair()
    x = torch.randn(2, 8, 32)
    torch_causal = nn.Transformer.generate_square_subsequent_mask(8).isinf()
    want, _ = ref(x, x, x, attn_mask=torch_causal, need_weights=False)
    got, _ = ours(x, causal=True)
    assert torch.allclose(got, want, atol=1e-5)
    got2, _ = ours(x, mask=causal_mask(8))
    assert torch.allclose(got2, want, atol=1e-5)


def test_gradients_equal_torch():
    ref, ours = _pair()
    x = torch.randn(2, 8, 32)
    ref(x, x, x, need_weights=False)[0].square().sum().backward()
    ours(x)[0].square().sum().backward()
    assert ref.in_proj_weight.grad is not None and ours.in_proj_weight.grad is not None
    assert torch.allclose(ours.in_proj_weight.grad, ref.in_proj_weight.grad, atol=1e-4)
    assert ref.out_proj.weight.grad is not None and ours.out_proj.weight.grad is not None
    assert torch.allclose(ours.out_proj.weight.grad, ref.out_proj.weight.grad, atol=1e-4)


def _repeat_kv_reference(m: MultiHeadAttention, x, mask=None):
    """GQA the slow, obvious way: repeat each key/value head for its query group, then MHA."""
    b, t, _ = x.shape
    h, hkv, d = m.num_heads, m.num_kv_heads, m.head_dim
    qkv = nn.functional.linear(x, m.in_proj_weight, m.in_proj_bias)
    q, k, v = qkv.split([h * d, hkv * d, hkv * d], dim=-1)
    q = q.view(b, t, h, d).transpose(1, 2)
    k = k.view(b, t, hkv, d).transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    v = v.view(b, t, hkv, d).transpose(1, 2).repeat_interleave(h // hkv, dim=1)
    w = torch.softmax(
        q @ k.transpose(-1, -2) / math.sqrt(d)
        + (
            0
            if mask is None
            else torch.zeros_like(mask, dtype=x.dtype).masked_fill(~mask, -math.inf)
        ),
        -1,
    )
    o = (w @ v).transpose(1, 2).reshape(b, t, h * d)
    return m.out_proj(o)


@pytest.mark.parametrize("kv_heads", [1, 2, 4, 8])
def test_gqa_equals_explicit_repetition(kv_heads):
    torch.manual_seed(0)
    m = MultiHeadAttention(64, 8, kv_heads)
    x = torch.randn(2, 7, 64)
    mask = torch.rand(2, 1, 7, 7) > 0.4
    mask[..., 0] = True
    for mk in (None, mask, causal_mask(7)):
        want = _repeat_kv_reference(m, x, mk)
        assert torch.allclose(m(x, mask=mk)[0], want, atol=1e-5)
        assert torch.allclose(m(x, mask=mk, return_weights=True)[0], want, atol=1e-5)
    assert m.in_proj_weight.shape == (64 + 2 * kv_heads * 8, 64)  # K/V weights shrink too


@pytest.mark.parametrize("positional", [None, "rope", "alibi"])
@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_cached_decoding_equals_full_causal_forward(positional, kv_heads):
    torch.manual_seed(0)
    m = MultiHeadAttention(32, 4, kv_heads, positional=positional).eval()
    x = torch.randn(2, 11, 32)
    full, _ = m(x, causal=True)
    cache = KVCache(chunk=4)
    prefix, _ = m(x[:, :3], causal=True, cache=cache)  # prefill 3 tokens at once
    steps = [prefix] + [m(x[:, t : t + 1], causal=True, cache=cache)[0] for t in range(3, 11)]
    assert torch.allclose(torch.cat(steps, 1), full, atol=1e-5)
    assert cache.length == 11 and cache.capacity == 12 and cache.grows == 3


def test_wrong_scale_would_be_caught():
    """The module must scale by 1/sqrt(head dim); 1/sqrt(model dim) gives different weights."""
    torch.manual_seed(0)
    m = MultiHeadAttention(64, 8)
    x = torch.randn(1, 5, 64)
    _, w = m(x, return_weights=True)
    q, k, _ = nn.functional.linear(x, m.in_proj_weight, m.in_proj_bias).split(64, -1)
    q, k = q.view(1, 5, 8, 8).transpose(1, 2), k.view(1, 5, 8, 8).transpose(1, 2)
    right = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(8), -1)
    wrong = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(64), -1)
    assert w is not None and torch.allclose(w, right, atol=1e-6)
    assert (w - wrong).abs().max() > 1e-2


def test_dropout_only_in_training():
    torch.manual_seed(0)
    m = MultiHeadAttention(32, 4, dropout=0.5)
    x = torch.randn(2, 6, 32)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    assert torch.equal(a, b)
    m.train()
    c, _ = m(x)
    assert not torch.allclose(a, c)


def test_bad_configuration_and_shapes():
    with pytest.raises(UsageError, match="multiple of num_heads"):
        MultiHeadAttention(30, 4)
    with pytest.raises(UsageError, match="multiple of num_kv_heads"):
        MultiHeadAttention(32, 4, 3)
    with pytest.raises(UsageError, match="positional"):
        MultiHeadAttention(32, 4, positional="sinusoidal")
    m = MultiHeadAttention(32, 4)
    with pytest.raises(UsageError, match=r"x must be \(batch, length, 32\)"):
        m(torch.randn(2, 5, 16))
    with pytest.raises(UsageError, match="batch sizes differ"):
        m(torch.randn(2, 5, 32), context=torch.randn(3, 5, 32))
    with pytest.raises(UsageError, match="does not broadcast"):
        m(torch.randn(2, 5, 32), mask=torch.ones(2, 4, 6, 6, dtype=torch.bool))
