from __future__ import annotations

import math

import pytest
import torch

from wirelab.attention import causal_mask, reference_attention, scaled_dot_product_attention
from wirelab.errors import UsageError


def _qkv(b=2, h=4, hkv=4, tq=5, tk=7, d=8, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, tq, d, generator=g, dtype=dtype)
    k = torch.randn(b, hkv, tk, d, generator=g, dtype=dtype)
    v = torch.randn(b, hkv, tk, d, generator=g, dtype=dtype)
    return q, k, v


def _textbook(q, k, v, mask=None, scale=None):
    """softmax(QK^T / sqrt(d)) V written out per head with a loop (no shared code with wirelab)."""
    b, h, tq, d = q.shape
    hkv = k.shape[1]
    s = 1 / math.sqrt(d) if scale is None else scale
    out = torch.zeros(b, h, tq, v.shape[-1], dtype=q.dtype)
    for hh in range(h):
        kk, vv = k[:, hh // (h // hkv)], v[:, hh // (h // hkv)]
        scores = q[:, hh] @ kk.transpose(-1, -2) * s
        if mask is not None:
            m = mask.expand(b, h, tq, k.shape[2])[:, hh]
            scores = scores.masked_fill(~m, float("-inf"))
        w = torch.softmax(scores, -1).nan_to_num(0.0)
        out[:, hh] = w @ vv
    return out


@pytest.mark.parametrize("hkv", [4, 2, 1])
def test_fused_and_explicit_agree_with_textbook(hkv):
    q, k, v = _qkv(hkv=hkv)
    ref = _textbook(q, k, v)
    fast = scaled_dot_product_attention(q, k, v)
    slow, w = scaled_dot_product_attention(q, k, v, return_weights=True)
    assert torch.allclose(fast, ref, atol=1e-5)
    assert torch.allclose(slow, ref, atol=1e-5)
    assert torch.allclose(w.sum(-1), torch.ones(2, 4, 5), atol=1e-6)


@pytest.mark.parametrize("hkv", [4, 2, 1])
def test_masks_and_causal_agree(hkv):
    q, k, v = _qkv(hkv=hkv, tq=7, tk=7)
    g = torch.Generator().manual_seed(1)
    mask = torch.rand(2, 4, 7, 7, generator=g) > 0.3
    mask[..., 0] = True
    for m in (mask, mask[:, :1], mask[:1, :1, :1]):
        ref = _textbook(q, k, v, m)
        assert torch.allclose(scaled_dot_product_attention(q, k, v, m), ref, atol=1e-5)
        out, _ = scaled_dot_product_attention(q, k, v, m, return_weights=True)
        assert torch.allclose(out, ref, atol=1e-5)
    c = causal_mask(7)
    ref = _textbook(q, k, v, c)
    assert torch.allclose(scaled_dot_product_attention(q, k, v, causal=True), ref, atol=1e-5)
    out, w = scaled_dot_product_attention(q, k, v, causal=True, return_weights=True)
    assert torch.allclose(out, ref, atol=1e-5)
    assert (w[..., ~c] == 0).all()


def test_causal_is_bottom_right_aligned_for_decoding():
    q, k, v = _qkv(tq=3, tk=9)
    full_q = torch.cat([torch.randn(2, 4, 6, 8), q], dim=2)  # last 3 queries are q
    full = scaled_dot_product_attention(full_q, k, v, causal=True)
    assert torch.allclose(
        scaled_dot_product_attention(q, k, v, causal=True), full[:, :, 6:], atol=1e-5
    )


@pytest.mark.parametrize("hkv", [4, 2])
@pytest.mark.parametrize("with_bias", [False, True])
def test_fully_masked_row_returns_zeros(hkv, with_bias):
    q, k, v = _qkv(hkv=hkv)
    mask = torch.ones(2, 4, 5, 7, dtype=torch.bool)
    mask[:, :, 2] = False  # query row 2 attends nothing
    bias = torch.randn(4, 5, 7) if with_bias else None
    q.requires_grad_(True)
    fast = scaled_dot_product_attention(q, k, v, mask, bias=bias)
    slow, w = scaled_dot_product_attention(q, k, v, mask, bias=bias, return_weights=True)
    for out in (fast, slow):
        assert torch.isfinite(out).all()
        assert (out[:, :, 2] == 0).all()
        assert out[:, :, 1].abs().sum() > 0
    assert (w[:, :, 2] == 0).all()
    assert torch.allclose(fast, slow, atol=1e-5)
    (fast.sum() + slow.sum()).backward()
    assert q.grad is not None and torch.isfinite(q.grad).all()


def test_bias_is_added_to_scores():
    q, k, v = _qkv(hkv=2)
    bias = torch.randn(4, 5, 7)
    fast = scaled_dot_product_attention(q, k, v, bias=bias)
    slow, w = scaled_dot_product_attention(q, k, v, bias=bias, return_weights=True)
    kr = k.repeat_interleave(2, dim=1)
    want = torch.softmax(q @ kr.transpose(-1, -2) / math.sqrt(8) + bias, -1)
    assert torch.allclose(w, want, atol=1e-6)
    assert torch.allclose(fast, slow, atol=1e-5)


def test_default_scale_is_head_dim_not_model_dim():
    """A wrong scale (1/sqrt(model dim) = 1/sqrt(H*D)) must not pass."""
    q, k, v = _qkv(h=4, d=8)
    _, w = scaled_dot_product_attention(q, k, v, return_weights=True)
    right = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(8), -1)
    wrong = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(4 * 8), -1)
    assert torch.allclose(w, right, atol=1e-6)
    assert not torch.allclose(w, wrong, atol=1e-3)
    out = scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(32))
    assert torch.allclose(out, wrong @ v, atol=1e-5)


def test_reference_is_float64_exact():
    q, k, v = _qkv(hkv=2, dtype=torch.float64)
    out, _ = reference_attention(q, k, v)
    assert torch.allclose(out, _textbook(q, k, v), atol=1e-12)


@pytest.mark.parametrize(
    ("shapes", "msg"),
    [
        (((2, 4, 5, 8), (2, 4, 7, 6), (2, 4, 7, 8)), "head dims differ"),
        (((2, 4, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8)), "multiple of key/value heads"),
        (((2, 4, 5, 8), (3, 4, 7, 8), (3, 4, 7, 8)), "batch sizes differ"),
        (((4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 8)), "must be (batch, heads, length, dim)"),
        (((2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 6, 8)), "k and v must share"),
    ],
)
def test_bad_shapes_raise_clear_errors(shapes, msg):
    q, k, v = (torch.randn(*s) for s in shapes)
    with pytest.raises(UsageError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        scaled_dot_product_attention(q, k, v)


def test_bad_masks_raise():
    q, k, v = _qkv()
    with pytest.raises(UsageError, match="does not broadcast"):
        scaled_dot_product_attention(q, k, v, torch.ones(5, 6, dtype=torch.bool))
    with pytest.raises(UsageError, match="boolean"):
        scaled_dot_product_attention(q, k, v, torch.ones(5, 7))
