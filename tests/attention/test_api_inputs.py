"""Issue #18: every mask and bias shape that broadcasts works on every path; what does not is a
one-line `UsageError`, never a raw torch error or NaN."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from wirelab.attention import KVCache, MultiHeadAttention
from wirelab.attention.functional import scaled_dot_product_attention as sdpa
from wirelab.attention.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding
from wirelab.errors import UsageError


def _qkv(hkv: int = 4, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 4, 5, 8, generator=g, dtype=dtype)
    k = torch.randn(2, hkv, 6, 8, generator=g, dtype=dtype)
    v = torch.randn(2, hkv, 6, 8, generator=g, dtype=dtype)
    return q, k, v


def _one_line(exc: pytest.ExceptionInfo[UsageError]) -> None:
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("hkv", [4, 2, 1])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", [(6,), (1, 6), (5, 6), (2, 1, 1, 6)])
def test_mask_of_any_broadcastable_shape_works_on_both_paths(hkv, causal, shape):
    q, k, v = _qkv(hkv)
    g = torch.Generator().manual_seed(1)
    mask = torch.rand(shape, generator=g) > 0.3
    full = mask.view((1,) * (4 - mask.dim()) + shape).expand(2, 4, 5, 6)
    want, w_want = sdpa(q, k, v, full, causal, return_weights=True)
    fused = sdpa(q, k, v, mask, causal)
    explicit, w = sdpa(q, k, v, mask, causal, return_weights=True)
    assert torch.allclose(fused, want, atol=1e-6)
    assert torch.allclose(explicit, want, atol=1e-6)
    assert torch.equal(w, w_want)


@pytest.mark.parametrize("shape", [(7,), (3, 6), (2, 4, 5, 6, 1), ()])
def test_mask_that_does_not_broadcast_is_one_line_usage_error(shape):
    q, k, v = _qkv()
    for return_weights in (False, True):
        with pytest.raises(UsageError, match="does not broadcast") as exc:
            sdpa(q, k, v, torch.ones(shape, dtype=torch.bool), return_weights=return_weights)
        _one_line(exc)


@pytest.mark.parametrize("hkv", [4, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_bias_row_all_minus_inf_gives_zeros_on_both_paths(hkv, dtype):
    """Defined behaviour: a query row with no key left gives zero weights and a zero output."""
    q, k, v = _qkv(hkv, dtype)
    bias = torch.randn(5, 6, dtype=dtype)
    bias[1] = float("-inf")  # row 1: every key removed
    bias[3, :4] = float("-inf")  # row 3: two keys left
    mask = torch.ones(5, 6, dtype=torch.bool)
    mask[2, 2:] = False
    bias[2, :2] = float("-inf")  # row 2: masked or -inf everywhere
    fused = sdpa(q, k, v, mask, bias=bias)
    out, w = sdpa(q, k, v, mask, bias=bias, return_weights=True)
    assert not torch.isnan(out).any() and not torch.isnan(w).any()
    assert torch.allclose(out, fused, atol=1e-6)
    for row in (1, 2):
        assert torch.equal(out[:, :, row], torch.zeros_like(out[:, :, row]))
        assert torch.equal(w[:, :, row], torch.zeros_like(w[:, :, row]))
    assert torch.allclose(w[:, :, 3].sum(-1), torch.ones(2, 4, dtype=dtype))
    assert torch.equal(w[:, :, 3, :4], torch.zeros(2, 4, 4, dtype=dtype))


def test_bias_minus_inf_row_has_finite_gradients():
    q, k, v = (t.requires_grad_() for t in _qkv())
    bias = torch.zeros(5, 6)
    bias[0] = float("-inf")
    out, _ = sdpa(q, k, v, bias=bias, return_weights=True)
    out.sum().backward()
    for t in (q, k, v):
        assert t.grad is not None and torch.isfinite(t.grad).all()


@pytest.mark.parametrize(
    "bias", [torch.zeros(3, 6), torch.zeros(5, 7), torch.zeros(2, 4, 5, 6, 1), torch.zeros(6, 5)]
)
def test_wrongly_shaped_bias_is_one_line_usage_error(bias):
    q, k, v = _qkv()
    for return_weights in (False, True):
        with pytest.raises(UsageError, match="bias of shape") as exc:
            sdpa(q, k, v, bias=bias, return_weights=return_weights)
        _one_line(exc)


def test_integer_bias_is_usage_error():
    q, k, v = _qkv()
    with pytest.raises(UsageError, match="float"):
        sdpa(q, k, v, bias=torch.zeros(5, 6, dtype=torch.long))


def test_from_torch_keeps_float64():
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(16, 4, batch_first=True).double()
    nn.init.normal_(ref.in_proj_bias)
    ours = MultiHeadAttention.from_torch(ref)
    assert all(p.dtype == torch.float64 for p in ours.parameters())
    x = torch.randn(2, 7, 16, dtype=torch.float64)
    want, _ = ref(x, x, x, need_weights=False)
    got, _ = ours(x)
    assert got.dtype == torch.float64
    assert torch.allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("kwargs", [{"add_bias_kv": True}, {"add_zero_attn": True}])
def test_from_torch_refuses_extra_key_rows(kwargs):
    ref = nn.MultiheadAttention(16, 4, batch_first=True, **kwargs)
    with pytest.raises(UsageError, match=next(iter(kwargs))) as exc:
        MultiHeadAttention.from_torch(ref)
    _one_line(exc)


@pytest.mark.parametrize("max_length", [-1, 0])
def test_kv_cache_rejects_non_positive_max_length(max_length):
    with pytest.raises(UsageError, match="max_length") as exc:
        KVCache(max_length=max_length)
    _one_line(exc)


@pytest.mark.parametrize("cls", [SinusoidalPositionalEncoding, LearnedPositionalEmbedding])
@pytest.mark.parametrize("shape", [(2, 3, 8), (3, 16)])
def test_input_encoding_with_wrong_dim_is_one_line_usage_error(cls, shape):
    enc = cls(16, 32)
    with pytest.raises(UsageError, match="built for dim 16") as exc:
        enc(torch.randn(shape))
    _one_line(exc)
    with pytest.raises(UsageError, match="outside"):
        enc(torch.randn(1, 3, 16), offset=31)
