"""Multi-head attention with grouped-query / multi-query variants, RoPE/ALiBi and a KV cache.

With ``H`` query heads of size ``D = dim / H`` and ``Hkv`` key/value heads (``H % Hkv == 0``)::

    Q = x W_q            (B, T, H*D)     -> (B, H, T, D)
    K, V = c W_k, c W_v  (B, S, Hkv*D)   -> (B, Hkv, S, D)      c = x (self) or context (cross)
    head_h = softmax(Q_h K_g^T / sqrt(D)) V_g,   g = h // (H / Hkv)
    out = concat_h(head_h) W_o           (B, T, dim)

``Hkv = H`` is multi-head attention (Vaswani et al. 2017), ``Hkv = 1`` multi-query (Shazeer 2019),
in between grouped-query (Ainslie et al. 2023). Keys and values are never repeated per query head
(see `wirelab.attention.functional`). The projection weights are stored like torch's
``nn.MultiheadAttention`` (``in_proj_weight`` = [W_q; W_k; W_v] stacked by rows, ``out_proj``), so
weights copy between the two with `MultiHeadAttention.from_torch`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from wirelab.attention.functional import scaled_dot_product_attention
from wirelab.attention.kv_cache import KVCache
from wirelab.attention.positional import (
    BIAS,
    ENCODINGS,
    INPUT,
    QK,
    PositionalEncoding,
    PositionalSpec,
)
from wirelab.errors import UsageError

__all__ = ["MultiHeadAttention"]


class MultiHeadAttention(nn.Module):
    """Batch-first multi-head attention: ``forward(x, context=None, mask=None) -> (out, weights)``.

    ``out = concat_h softmax(Q_h K_g^T / sqrt(D)) V_g  W_o`` (module docstring), x (B, T, C) ->
    out (B, T, C); weights (B, H, T, S) with ``return_weights=True``, else None.

    Loading torch weights: `from_torch` copies one ``torch.nn.MultiheadAttention``; the
    parameter names are torch's (``in_proj_weight``, ``in_proj_bias``, ``out_proj.weight``,
    ``out_proj.bias``), so ``model.load_state_dict(torch_model.state_dict())`` loads a whole
    model in which ``nn.MultiheadAttention`` was swapped for this class. Masks: torch's
    ``key_padding_mask``/``attn_mask`` (True = ignore) -> ``mask=from_torch_mask(attn_mask,
    key_padding_mask)`` (True = attend).

    Example:
        ```python
        mha = MultiHeadAttention(64, num_heads=8, num_kv_heads=2)  # GQA: 4 query heads per K/V
        x = torch.randn(2, 10, 64)
        out, _ = mha(x, causal=True)                             # (2, 10, 64)
        out, w = mha(x, context=torch.randn(2, 7, 64), return_weights=True)  # w: (2, 8, 10, 7)
        ```

    Parameters
    ----------
    dim : model width C (input and output).
    num_heads : query heads H; head dim D = dim // H.
    num_kv_heads : key/value heads Hkv (default H). 1 = MQA, H = MHA, divisors of H = GQA.
    bias : biases on the projections.
    dropout : dropout on the attention weights (training only).
    positional : None or the name of a `wirelab.attention.positional.ENCODINGS` entry that acts
        inside attention: kind ``"qk"`` (e.g. ``"rope"``: rotates q, k in self-attention) or
        ``"bias"`` (e.g. ``"alibi"``: added to the scores).
    rope_layout, rope_base : see `RotaryEmbedding`.
    """

    def __init__(
        self,
        dim: int,
        num_heads: int,
        num_kv_heads: int | None = None,
        *,
        bias: bool = True,
        dropout: float = 0.0,
        positional: str | None = None,
        rope_layout: str = "half",
        rope_base: float = 10000.0,
    ) -> None:
        super().__init__()
        kv = num_heads if num_kv_heads is None else num_kv_heads
        if num_heads < 1 or dim % num_heads:
            raise UsageError(f"dim ({dim}) must be a positive multiple of num_heads ({num_heads})")
        if kv < 1 or num_heads % kv:
            raise UsageError(f"num_heads ({num_heads}) must be a multiple of num_kv_heads ({kv})")
        encoding = None if positional is None else ENCODINGS.get(positional)
        if encoding is not None and encoding.kind == INPUT:
            inside = [n for n in ENCODINGS.names() if ENCODINGS.get(n).kind != INPUT]
            raise UsageError(
                f"positional encoding {positional!r} is added to the input, not applied inside "
                f"attention; use None or one of: {', '.join(inside)}"
            )
        if not 0.0 <= dropout < 1.0:
            raise UsageError(f"dropout must be in [0, 1), got {dropout}")
        self.dim, self.num_heads, self.num_kv_heads = dim, num_heads, kv
        self.head_dim = dim // num_heads
        self.dropout = dropout
        self.positional = positional
        self._q_width = num_heads * self.head_dim
        self._kv_width = kv * self.head_dim
        rows = self._q_width + 2 * self._kv_width
        self.in_proj_weight = nn.Parameter(torch.empty(rows, dim))  # [W_q; W_k; W_v]
        self.in_proj_bias = nn.Parameter(torch.zeros(rows)) if bias else None
        self.out_proj = nn.Linear(self._q_width, dim, bias=bias)
        self.encoding: PositionalEncoding | None = None
        if encoding is not None:
            spec = PositionalSpec(dim, num_heads, base=rope_base, rope_layout=rope_layout)
            self.encoding = encoding.build(spec)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            nn.init.zeros_(self.in_proj_bias)
        if self.out_proj.bias is not None:
            nn.init.zeros_(self.out_proj.bias)

    @classmethod
    def from_torch(cls, m: nn.MultiheadAttention) -> MultiHeadAttention:
        """Copy the weights of a ``torch.nn.MultiheadAttention`` (same q/k/v widths), keeping its
        dtype and device. Modules with ``add_bias_kv`` or ``add_zero_attn`` (extra key/value
        rows this class does not have) are refused.

        ``ours(x, mask=from_torch_mask(attn_mask, key_padding_mask))[0]`` then equals
        ``m(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask)[0]`` (batch-first).
        """
        if not m._qkv_same_embed_dim:
            raise UsageError(
                "only nn.MultiheadAttention with kdim == vdim == embed_dim is supported"
            )
        flags = {"add_bias_kv": m.bias_k is not None, "add_zero_attn": bool(m.add_zero_attn)}
        extra = [name for name, on in flags.items() if on]
        if extra:
            raise UsageError(
                f"nn.MultiheadAttention with {' and '.join(f'{n}=True' for n in extra)} "
                "is not supported (no extra key/value rows here)"
            )
        w = m.in_proj_weight
        out = cls(m.embed_dim, m.num_heads, bias=m.in_proj_bias is not None, dropout=m.dropout)
        out = out.to(device=w.device, dtype=w.dtype)
        with torch.no_grad():
            out.in_proj_weight.copy_(w)
            if out.in_proj_bias is not None and m.in_proj_bias is not None:
                out.in_proj_bias.copy_(m.in_proj_bias)
            out.out_proj.weight.copy_(m.out_proj.weight)
            if out.out_proj.bias is not None and m.out_proj.bias is not None:
                out.out_proj.bias.copy_(m.out_proj.bias)
        return out

    def _heads(self, t: Tensor, heads: int) -> Tensor:
        b, n, _ = t.shape
        return t.view(b, n, heads, self.head_dim).transpose(1, 2)  # (B, heads, n, D)

    def project_kv(self, context: Tensor) -> tuple[Tensor, Tensor]:
        """Keys and values of a context (B, S, C) -> two (B, Hkv, S, D); reusable across steps."""
        self._check_input(context, "context")
        w = self.in_proj_weight[self._q_width :]
        b = None if self.in_proj_bias is None else self.in_proj_bias[self._q_width :]
        kv = F.linear(context, w, b)  # (B, S, 2*Hkv*D)
        k, v = kv.split(self._kv_width, dim=-1)
        return self._heads(k, self.num_kv_heads), self._heads(v, self.num_kv_heads)

    def _check_input(self, t: Tensor, name: str) -> None:
        if t.dim() != 3 or t.shape[-1] != self.dim:
            raise UsageError(
                f"{name} must be (batch, length, {self.dim}), got shape {tuple(t.shape)}"
            )

    def forward(
        self,
        x: Tensor,
        context: Tensor | None = None,
        mask: Tensor | None = None,
        *,
        causal: bool = False,
        return_weights: bool = False,
        cache: KVCache | None = None,
        kv: tuple[Tensor, Tensor] | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """Attend from x (B, T, C) to itself or to ``context`` (B, S, C).

        mask : bool, broadcastable to (B, H, T, S), True = attend.
        causal : causal self-attention (aligned at the end of the cached keys).
        return_weights : also return the per-head weights (B, H, T, S) (explicit path).
        cache : append this call's keys/values to it and attend over all cached positions
            (self-attention, incremental decoding; RoPE/ALiBi positions continue from its length).
        kv : precomputed (k, v) from `project_kv` (cross-attention over a fixed memory).
        Returns ``(out (B, T, C), weights or None)``.
        """
        self._check_input(x, "x")
        w, bias = self.in_proj_weight, self.in_proj_bias
        offset = cache.length if cache is not None else 0
        cross = context is not None or kv is not None
        if not cross:
            qkv = F.linear(x, w, bias)  # (B, T, (H + 2 Hkv) D)
            if return_weights and self.num_kv_heads == self.num_heads:
                # explicit path: one copy to contiguous heads instead of one per matmul operand
                b_, t_ = x.shape[:2]
                heads = qkv.view(b_, t_, 3, self.num_heads, self.head_dim)
                q, k, v = heads.permute(2, 0, 3, 1, 4).contiguous().unbind(0)  # (B, H, T, D)
            else:
                q, k, v = qkv.split([self._q_width, self._kv_width, self._kv_width], dim=-1)
                q = self._heads(q, self.num_heads)  # (B, H, T, D)
                k = self._heads(k, self.num_kv_heads)  # (B, Hkv, T, D)
                v = self._heads(v, self.num_kv_heads)
            if self.encoding is not None and self.encoding.kind == QK:
                q, k = self.encoding(q, offset=offset), self.encoding(k, offset=offset)
        else:
            qw = w[: self._q_width]
            qb = None if bias is None else bias[: self._q_width]
            q = self._heads(F.linear(x, qw, qb), self.num_heads)  # (B, H, T, D)
            if kv is None:
                assert context is not None
                if context.shape[0] != x.shape[0]:
                    raise UsageError(
                        f"x and context batch sizes differ: {x.shape[0]} vs {context.shape[0]}"
                    )
                k, v = self.project_kv(context)
            else:
                k, v = kv
        if cache is not None:
            k, v = cache.append(k, v)  # (B, Hkv, offset + T, D)
        attn_bias = None
        if self.encoding is not None and self.encoding.kind == BIAS:
            attn_bias = self.encoding.bias(
                q.shape[2], k.shape[2], causal=causal, device=x.device
            ).to(q.dtype)  # (H, T, S)
        p = self.dropout if self.training else 0.0
        weights: Tensor | None = None
        if return_weights:
            o, weights = scaled_dot_product_attention(
                q, k, v, mask, causal, return_weights=True, bias=attn_bias, dropout_p=p
            )
        else:
            o = scaled_dot_product_attention(q, k, v, mask, causal, bias=attn_bias, dropout_p=p)
        b, _, t, _ = o.shape
        o = o.transpose(1, 2).reshape(b, t, self._q_width)  # (B, T, H*D)
        return self.out_proj(o), weights

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, num_heads={self.num_heads}, num_kv_heads={self.num_kv_heads}, "
            f"head_dim={self.head_dim}, positional={self.positional}, dropout={self.dropout}"
        )
