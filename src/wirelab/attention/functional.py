"""Scaled dot-product attention: the fused torch kernel and the explicit math, side by side.

    Attention(Q, K, V) = softmax(Q K^T * scale + bias, masked) V,   scale = 1 / sqrt(d_k)

(Vaswani et al. 2017, eq. 1). Shapes are ``(batch, heads, length, dim)``:

    q: (B, H, Tq, D)    k: (B, Hkv, Tk, D)    v: (B, Hkv, Tk, Dv)    ->    out: (B, H, Tq, Dv)

``Hkv`` may divide ``H`` (grouped-query attention, Ainslie et al. 2023; multi-query at ``Hkv = 1``):
query head ``h`` reads key/value head ``h // (H // Hkv)``. Keys and values are never copied per
query head: the ``G = H // Hkv`` query heads that share a key/value head are stacked along the
query axis, ``(B, H, Tq, D) -> (B, Hkv, G * Tq, D)``, exact because
every query row is independent.

Mask convention (one for all of wirelab): a boolean ``mask`` broadcastable to ``(B, H, Tq, Tk)``,
**True = attend**; any shape that broadcasts is accepted on every path, from a key mask ``(Tk,)``
to the full ``(B, H, Tq, Tk)``. A float ``bias`` broadcastable to the same shape is added to the
scores; a ``-inf`` in it removes that key like a False in the mask. A query row with no key left
(all masked, or every unmasked score ``-inf``) returns a zero vector and zero weights, not NaN,
on both paths. Convert torch's ``nn.MultiheadAttention`` masks ("True = ignore") with
`wirelab.attention.masks.from_torch_mask`.
"""

from __future__ import annotations

import math
from typing import Literal, overload

import torch
import torch.nn.functional as F
from torch import Tensor

from wirelab.errors import UsageError

__all__ = ["check_qkv", "reference_attention", "scaled_dot_product_attention"]


def check_qkv(q: Tensor, k: Tensor, v: Tensor) -> tuple[int, int]:
    """Validate shapes; return ``(H, Hkv)``. Raises `UsageError` with a one-line reason."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            raise UsageError(
                f"{name} must be (batch, heads, length, dim), got {t.dim()} dims {tuple(t.shape)}"
            )
    if q.shape[0] != k.shape[0] or k.shape[0] != v.shape[0]:
        raise UsageError(f"batch sizes differ: q {q.shape[0]}, k {k.shape[0]}, v {v.shape[0]}")
    if q.shape[-1] != k.shape[-1]:
        raise UsageError(f"q and k head dims differ: {q.shape[-1]} vs {k.shape[-1]}")
    if k.shape[1] != v.shape[1] or k.shape[2] != v.shape[2]:
        raise UsageError(
            f"k and v must share (heads, length): {tuple(k.shape[1:3])} vs {tuple(v.shape[1:3])}"
        )
    h, hkv = q.shape[1], k.shape[1]
    if h % hkv:
        raise UsageError(f"query heads ({h}) must be a multiple of key/value heads ({hkv})")
    return h, hkv


def _as_4d(t: Tensor) -> Tensor:
    """A view of ``t`` with leading singleton dims up to 4: (Tk,) -> (1, 1, 1, Tk)."""
    return t.view((1,) * (4 - t.dim()) + tuple(t.shape))


def _check_broadcast(name: str, t: Tensor, q: Tensor, k: Tensor) -> Tensor:
    """``t`` as a 4-D view broadcastable to (B, H, Tq, Tk), or a one-line `UsageError`."""
    target = (q.shape[0], q.shape[1], q.shape[2], k.shape[2])
    ok = 1 <= t.dim() <= 4
    if ok:
        try:
            ok = torch.broadcast_shapes(t.shape, target) == target
        except RuntimeError:
            ok = False
    if not ok:
        raise UsageError(
            f"{name} of shape {tuple(t.shape)} does not broadcast to (B, H, Tq, Tk) = {target}"
        )
    return _as_4d(t)


def _check_mask(mask: Tensor, q: Tensor, k: Tensor) -> Tensor:
    if mask.dtype != torch.bool:
        raise UsageError(f"mask must be boolean (True = attend), got {mask.dtype}")
    return _check_broadcast("mask", mask, q, k)


def _check_bias(bias: Tensor, q: Tensor, k: Tensor) -> Tensor:
    if not bias.is_floating_point():
        raise UsageError(f"bias must be a float tensor (added to the scores), got {bias.dtype}")
    return _check_broadcast("bias", bias, q, k)


def _causal(tq: int, tk: int, device: torch.device) -> Tensor:
    # Bottom-right aligned: query i sits at absolute position tk - tq + i (cached decoding).
    from wirelab.attention.masks import causal_mask

    return causal_mask(tq, tk, device=device)


def _combine(
    mask: Tensor | None, causal: bool, tq: int, tk: int, dev: torch.device
) -> Tensor | None:
    if not causal or tq == 1:
        return mask  # one query at the end of the keys attends all of them
    c = _causal(tq, tk, dev)  # (Tq, Tk)
    return c if mask is None else mask & c


def _group_queries(x: Tensor, hkv: int) -> Tensor:
    """(B, H, T, X) -> (B, Hkv, G*T, X): stack the G query heads that share one key/value head."""
    b, h, t, d = x.shape
    return x.reshape(b, hkv, (h // hkv) * t, d)


def _group_mask(mask: Tensor, h: int, hkv: int, tq: int) -> Tensor:
    """Broadcastable (B|1, H|1, Tq|1, Tk) mask -> (B|1, Hkv|1, G*Tq, Tk), as `_group_queries`."""
    g = h // hkv
    b, mh, _, tk = mask.shape
    if mh == 1:
        m = mask.expand(b, 1, tq, tk)
        return m.unsqueeze(2).expand(b, 1, g, tq, tk).reshape(b, 1, g * tq, tk)
    return mask.expand(b, h, tq, tk).reshape(b, hkv, g * tq, tk)


def reference_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    scale: float | None = None,
    bias: Tensor | None = None,
    dropout_p: float = 0.0,
) -> tuple[Tensor, Tensor]:
    """The explicit, readable computation; returns ``(out, weights)``.

    q: (B, H, Tq, D), k/v: (B, Hkv, Tk, D) with H a multiple of Hkv, mask (True = attend) and
    bias broadcastable to (B, H, Tq, Tk).
    weights: (B, H, Tq, Tk), rows sum to 1, or to 0 when no key is left (every key masked or
    scored -inf): such a row gives zero weights and a zero output, as the fused kernel does.

    Example:
        ```python
        q, k, v = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
        out, w = reference_attention(q, k, v)  # (1, 4, 3, 8), (1, 4, 3, 5); GQA, 2 per K/V head
        ```
    """
    h, hkv = q.shape[1], k.shape[1]
    b, _, tq, d = q.shape
    tk = k.shape[2]
    s = 1.0 / math.sqrt(d) if scale is None else scale
    qg = _group_queries(q * s, hkv)  # (B, Hkv, G*Tq, D)
    scores = qg @ k.transpose(-2, -1)  # (B, Hkv, G*Tq, Tk)
    scores = scores.view(b, h, tq, tk)  # (B, H, Tq, Tk)
    lowest = torch.finfo(scores.dtype).min
    dead: Tensor | None = None  # (B, H, Tq, 1): rows with no key left
    if bias is not None:
        scores = scores + bias
        gone = torch.isneginf(scores) if mask is None else torch.isneginf(scores) | ~mask
        dead = gone.all(dim=-1, keepdim=True)
        # -inf -> the lowest finite value: the same softmax for live rows, finite gradients
        scores = scores.clamp(min=lowest) if scores.requires_grad else scores.clamp_(min=lowest)
    if mask is not None:
        # A large finite negative (not -inf) keeps fully masked rows finite in backward too.
        scores = scores.masked_fill(~mask, lowest)
    if scores.requires_grad:
        weights = torch.softmax(scores, dim=-1)  # (B, H, Tq, Tk)
    else:
        # Inference: overwrite the scores (our own buffer) instead of allocating a second
        # (B, H, Tq, Tk) tensor; a fresh large allocation costs page faults on every call.
        weights = torch.softmax(scores, dim=-1, out=scores)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # fully masked rows -> all zeros
    if dead is not None:
        weights = weights.masked_fill(dead, 0.0)  # rows scored -inf everywhere -> all zeros
    attn = F.dropout(weights, dropout_p) if dropout_p > 0 else weights
    out = _group_queries(attn.reshape(b, h, tq, tk), hkv) @ v  # (B, Hkv, G*Tq, Dv)
    return out.view(b, h, tq, v.shape[-1]), weights


@overload
def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = ...,
    causal: bool = ...,
    scale: float | None = ...,
    return_weights: Literal[False] = ...,
    *,
    bias: Tensor | None = ...,
    dropout_p: float = ...,
) -> Tensor: ...


@overload
def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = ...,
    causal: bool = ...,
    scale: float | None = ...,
    *,
    return_weights: Literal[True],
    bias: Tensor | None = ...,
    dropout_p: float = ...,
) -> tuple[Tensor, Tensor]: ...


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
    return_weights: bool = False,
    *,
    bias: Tensor | None = None,
    dropout_p: float = 0.0,
) -> Tensor | tuple[Tensor, Tensor]:
    """softmax(Q K^T * scale + bias) V with mask True = attend; see the module docstring.

    Parameters
    ----------
    q, k, v : (B, H, Tq, D), (B, Hkv, Tk, D), (B, Hkv, Tk, Dv); ``H % Hkv == 0``.
    mask : bool, broadcastable to (B, H, Tq, Tk) (1-4 dims, e.g. a key mask (Tk,)); True = attend.
    causal : also mask keys after the query. Aligned bottom-right: query ``i`` is at absolute
        position ``Tk - Tq + i``, so a single new token attends the whole cached prefix.
    scale : defaults to ``1 / sqrt(D)`` (the *head* dim, not the model dim).
    return_weights : if True take the explicit path and return ``(out, weights)`` with weights
        (B, H, Tq, Tk); otherwise call torch's fused SDPA (never materialises the weights).
    bias : float, broadcastable to (B, H, Tq, Tk), added to the scores (ALiBi, relative bias);
        ``-inf`` removes a key, and a row left with no key gives zeros (out and weights).
    dropout_p : dropout on the weights (pass 0 in eval mode).

    Example:
        ```python
        q, k, v = torch.randn(2, 8, 10, 16), torch.randn(2, 2, 10, 16), torch.randn(2, 2, 10, 16)
        out = scaled_dot_product_attention(q, k, v, causal=True)  # (2, 8, 10, 16), fused
        out, w = scaled_dot_product_attention(q, k, v, causal=True, return_weights=True)
        ```
    """
    h, hkv = check_qkv(q, k, v)
    if mask is not None:
        mask = _check_mask(mask, q, k)  # (B|1, H|1, Tq|1, Tk|1)
    if bias is not None:
        bias = _check_bias(bias, q, k)
    tq, tk = q.shape[2], k.shape[2]
    if return_weights:
        m = _combine(mask, causal, tq, tk, q.device)
        return reference_attention(q, k, v, m, scale, bias, dropout_p)

    if h == hkv:
        if bias is None and mask is None and causal and tq == tk:
            return F.scaled_dot_product_attention(
                q, k, v, is_causal=True, scale=scale, dropout_p=dropout_p
            )
        m = _combine(mask, causal, tq, tk, q.device)
        attn_mask = _as_additive(m, bias, q.dtype) if bias is not None else m
        return F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, scale=scale, dropout_p=dropout_p
        )

    # Grouped-query: fold the G query heads of each key/value head into the query axis.
    b = q.shape[0]
    m = _combine(mask, causal, tq, tk, q.device)
    if m is not None:
        m = _group_mask(_as_4d(m), h, hkv, tq)
    if bias is not None:
        full = bias.expand(b, h, tq, tk).reshape(b, hkv, (h // hkv) * tq, tk)
        gmask: Tensor | None = _as_additive(m, full, q.dtype)
    else:
        gmask = m
    out = F.scaled_dot_product_attention(
        _group_queries(q, hkv), k, v, attn_mask=gmask, scale=scale, dropout_p=dropout_p
    )  # (B, Hkv, G*Tq, Dv)
    return out.view(b, h, tq, v.shape[-1])


def _as_additive(mask: Tensor | None, bias: Tensor, dtype: torch.dtype) -> Tensor:
    bias = bias.to(dtype)
    if mask is None:
        return bias
    return bias.masked_fill(~mask, float("-inf"))
