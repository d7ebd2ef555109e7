"""Transformer blocks (pre-norm, Xiong et al. 2020): encoder layer, decoder layer, two small models.

Encoder layer (self-attention, then feed-forward)::

    x = x + MHA(LN(x), mask);   x = x + FFN(LN(x)),   FFN(x) = W_2 GELU(W_1 x)

Decoder layer: causal self-attention, then source-target (cross) attention over the encoder output
``memory``, then the feed-forward. `EncoderDecoder` is the original arrangement
(Vaswani et al. 2017) with sinusoidal positions; `DecoderOnly` is a GPT/Llama-style stack
(RoPE by default, optional GQA). Both decode greedily with a `KVCache` per layer: each new
token costs one column of keys/values.
Shapes: tokens (B, T) int64, hidden (B, T, C), logits (B, T, vocab).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from wirelab.attention.kv_cache import KVCache
from wirelab.attention.masks import padding_mask
from wirelab.attention.mha import MultiHeadAttention
from wirelab.attention.positional import (
    ENCODINGS,
    INPUT,
    PositionalSpec,
    SinusoidalPositionalEncoding,
)
from wirelab.errors import UsageError

__all__ = ["DecoderLayer", "DecoderOnly", "EncoderDecoder", "EncoderLayer", "LayerCache"]


class FeedForward(nn.Sequential):
    def __init__(self, dim: int, hidden: int, dropout: float) -> None:
        super().__init__(
            nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, dim)
        )


@dataclass
class LayerCache:
    """Decoding state of one `DecoderLayer`: its self-attention `KVCache` (B, H, length, D) and
    the cross-attention keys/values of the memory, two (B, H, S, D), computed once.

    Example:
        ```python
        caches = [LayerCache() for _ in range(2)]  # one per layer, for EncoderDecoder.decode
        ```
    """

    self_kv: KVCache = field(default_factory=KVCache)
    cross_kv: tuple[Tensor, Tensor] | None = None


class EncoderLayer(nn.Module):
    """Self-attention + feed-forward, pre-norm: ``x += MHA(LN(x)); x += FFN(LN(x))``.

    ``forward(x (B, T, C), mask=None, cache=None) -> (x (B, T, C), weights (B, H, T, T) or
    None)``. ``causal=True`` makes it a decoder-only (GPT) block.

    Example:
        ```python
        layer = EncoderLayer(32, num_heads=4, num_kv_heads=2, causal=True, positional="rope")
        y, _ = layer(torch.randn(2, 9, 32))  # (2, 9, 32)
        ```
    """

    def __init__(
        self,
        dim: int,
        num_heads: int,
        num_kv_heads: int | None = None,
        *,
        ff_mult: int = 4,
        dropout: float = 0.0,
        causal: bool = False,
        positional: str | None = None,
    ) -> None:
        super().__init__()
        self.causal = causal
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = MultiHeadAttention(
            dim, num_heads, num_kv_heads, dropout=dropout, positional=positional
        )
        self.ff = FeedForward(dim, ff_mult * dim, dropout)
        self.drop = nn.Dropout(dropout)

    def forward(
        self,
        x: Tensor,
        mask: Tensor | None = None,
        *,
        cache: KVCache | None = None,
        return_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        a, w = self.attn(
            self.norm1(x), mask=mask, causal=self.causal, cache=cache, return_weights=return_weights
        )
        x = x + self.drop(a)
        x = x + self.drop(self.ff(self.norm2(x)))
        return x, w  # (B, T, C), (B, H, T, T) or None


class DecoderLayer(nn.Module):
    """Causal self-attention, source-target attention over ``memory``, feed-forward (pre-norm):
    ``x += SelfMHA(LN(x)); x += CrossMHA(LN(x), memory); x += FFN(LN(x))``.

    Example:
        ```python
        layer = DecoderLayer(32, num_heads=4)
        y, w = layer(torch.randn(2, 5, 32), torch.randn(2, 8, 32), return_weights=True)
        # y: (2, 5, 32); w: cross-attention weights (2, 4, 5, 8)
        ```
    """

    def __init__(self, dim: int, num_heads: int, *, ff_mult: int = 4, dropout: float = 0.0) -> None:
        super().__init__()
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.self_attn = MultiHeadAttention(dim, num_heads, dropout=dropout)
        self.cross_attn = MultiHeadAttention(dim, num_heads, dropout=dropout)
        self.ff = FeedForward(dim, ff_mult * dim, dropout)
        self.drop = nn.Dropout(dropout)

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        memory_mask: Tensor | None = None,
        *,
        cache: LayerCache | None = None,
        return_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """x (B, T, C), memory (B, S, C), memory_mask (B, 1, 1, S) -> x, cross weights (B,H,T,S)."""
        a, _ = self.self_attn(
            self.norm1(x), causal=True, cache=None if cache is None else cache.self_kv
        )
        x = x + self.drop(a)
        kv = None
        if cache is not None:
            if cache.cross_kv is None:
                cache.cross_kv = self.cross_attn.project_kv(memory)  # once per sequence
            kv = cache.cross_kv
        c, w = self.cross_attn(
            self.norm2(x),
            context=memory if kv is None else None,
            kv=kv,
            mask=memory_mask,
            return_weights=return_weights,
        )
        x = x + self.drop(c)
        x = x + self.drop(self.ff(self.norm3(x)))
        return x, w


def _check_tokens(tokens: Tensor, name: str) -> None:
    if tokens.dim() != 2 or tokens.dtype not in (torch.int64, torch.int32):
        raise UsageError(
            f"{name} must be integer (batch, length), got {tokens.dtype} {tuple(tokens.shape)}"
        )


class EncoderDecoder(nn.Module):
    """A small Transformer for sequence-to-sequence tasks (sinusoidal positions, pre-norm).

    ``forward(src (B, S), tgt_in (B, T)) -> logits (B, T, tgt_vocab)`` (teacher forcing);
    ``greedy_decode(src, bos_id, max_len) -> (tokens (B, max_len), weights or None)`` with a
    `KVCache` per decoder layer. Token 0 (``pad_id``) is padding.

    Example:
        ```python
        model = EncoderDecoder(src_vocab=12, tgt_vocab=12, dim=32, num_heads=4)
        logits = model(torch.randint(1, 12, (2, 7)), torch.randint(1, 12, (2, 5)))  # (2, 5, 12)
        tokens, _ = model.greedy_decode(torch.randint(1, 12, (2, 7)), bos_id=1, max_len=6)
        ```
    """

    def __init__(
        self,
        src_vocab: int,
        tgt_vocab: int,
        dim: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        *,
        ff_mult: int = 4,
        dropout: float = 0.0,
        max_len: int = 512,
        pad_id: int = 0,
    ) -> None:
        super().__init__()
        self.dim, self.pad_id = dim, pad_id
        self.src_embed = nn.Embedding(src_vocab, dim)
        self.tgt_embed = nn.Embedding(tgt_vocab, dim)
        self.pos = SinusoidalPositionalEncoding(dim, max_len)
        self.encoder = nn.ModuleList(
            EncoderLayer(dim, num_heads, ff_mult=ff_mult, dropout=dropout)
            for _ in range(num_layers)
        )
        self.decoder = nn.ModuleList(
            DecoderLayer(dim, num_heads, ff_mult=ff_mult, dropout=dropout)
            for _ in range(num_layers)
        )
        self.enc_norm, self.dec_norm = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.head = nn.Linear(dim, tgt_vocab)

    def encode(self, src: Tensor) -> tuple[Tensor, Tensor]:
        """src (B, S) -> memory (B, S, C), src mask (B, 1, 1, S) (True = real token)."""
        _check_tokens(src, "src")
        mask = padding_mask(src, self.pad_id)
        x = self.pos(self.src_embed(src) * math.sqrt(self.dim))
        for layer in self.encoder:
            x, _ = layer(x, mask)
        return self.enc_norm(x), mask

    def decode(
        self,
        tgt: Tensor,
        memory: Tensor,
        memory_mask: Tensor | None,
        *,
        caches: list[LayerCache] | None = None,
        return_weights: bool = False,
    ) -> tuple[Tensor, list[Tensor]]:
        """tgt (B, T) -> logits (B, T, V) and per-layer cross weights [(B, H, T, S)]."""
        _check_tokens(tgt, "tgt")
        offset = 0 if caches is None else caches[0].self_kv.length
        x = self.pos(self.tgt_embed(tgt) * math.sqrt(self.dim), offset)
        maps: list[Tensor] = []
        for i, layer in enumerate(self.decoder):
            x, w = layer(
                x,
                memory,
                memory_mask,
                cache=None if caches is None else caches[i],
                return_weights=return_weights,
            )
            if w is not None:
                maps.append(w)
        return self.head(self.dec_norm(x)), maps

    def forward(self, src: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher forcing: logits (B, T, V) for target inputs (BOS + target[:-1])."""
        memory, mask = self.encode(src)
        logits, _ = self.decode(tgt_in, memory, mask)
        return logits

    @torch.no_grad()
    def greedy_decode(
        self,
        src: Tensor,
        bos_id: int,
        max_len: int,
        *,
        eos_id: int | None = None,
        use_cache: bool = True,
        return_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """Greedy decoding. Returns tokens (B, max_len) (after BOS) and, if asked, the cross
        weights of every step stacked as (layers, B, H, max_len, S)."""
        memory, mask = self.encode(src)
        b = src.shape[0]
        caches = [LayerCache() for _ in self.decoder] if use_cache else None
        seq = torch.full((b, 1), bos_id, dtype=torch.long, device=src.device)
        steps: list[list[Tensor]] = []
        done = torch.zeros(b, dtype=torch.bool, device=src.device)
        for _ in range(max_len):
            inp = seq[:, -1:] if use_cache else seq
            logits, maps = self.decode(
                inp, memory, mask, caches=caches, return_weights=return_weights
            )
            nxt = logits[:, -1].argmax(-1)  # (B,)
            if eos_id is not None:
                nxt = torch.where(done, torch.full_like(nxt, self.pad_id), nxt)
                done = done | (nxt == eos_id)
            seq = torch.cat([seq, nxt[:, None]], dim=1)
            if return_weights:
                steps.append([m[:, :, -1:] for m in maps])  # each (B, H, 1, S)
        weights = None
        if return_weights:
            weights = torch.stack(
                [torch.cat([s[i] for s in steps], dim=2) for i in range(len(self.decoder))]
            )
        return seq[:, 1:], weights


class DecoderOnly(nn.Module):
    """A GPT/Llama-style causal language model with optional GQA; `generate` uses the KV cache.

    ``forward(tokens (B, T), caches=None) -> logits (B, T, vocab)``;
    ``generate(prompt (B, T0), n) -> (B, T0 + n)`` greedy, one `KVCache` per layer
    (``use_cache=False`` recomputes the prefix every step: the same tokens).

    Example:
        ```python
        lm = DecoderOnly(vocab=16, dim=32, num_heads=4, num_kv_heads=1)  # multi-query
        out = lm.generate(torch.randint(0, 16, (2, 4)), max_new_tokens=6)  # (2, 10)
        assert torch.equal(out, lm.generate(out[:, :4], 6, use_cache=False))
        ```

    ``positional`` names a `wirelab.attention.positional.ENCODINGS` entry: an ``"input"`` encoding
    is added to the token embeddings, a ``"qk"`` or ``"bias"`` one acts in every attention layer.
    """

    def __init__(
        self,
        vocab: int,
        dim: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        *,
        num_kv_heads: int | None = None,
        positional: str = "rope",
        ff_mult: int = 4,
        dropout: float = 0.0,
        max_len: int = 2048,
    ) -> None:
        super().__init__()
        encoding = ENCODINGS.get(positional)  # one-line error naming the choices
        self.max_len = max_len
        self.embed = nn.Embedding(vocab, dim)
        self.pos: nn.Module | None = None
        in_attn: str | None = positional
        if encoding.kind == INPUT:  # added to the embeddings; otherwise applied in attention
            self.pos = encoding.build(PositionalSpec(dim, num_heads, max_len=max_len))
            in_attn = None
        self.layers = nn.ModuleList(
            EncoderLayer(
                dim,
                num_heads,
                num_kv_heads,
                ff_mult=ff_mult,
                dropout=dropout,
                causal=True,
                positional=in_attn,
            )
            for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def new_caches(self, chunk: int = 256) -> list[KVCache]:
        return [KVCache(chunk=chunk, max_length=self.max_len) for _ in self.layers]

    def forward(self, tokens: Tensor, caches: list[KVCache] | None = None) -> Tensor:
        """tokens (B, T) -> logits (B, T, V); with caches, tokens continue the cached prefix."""
        _check_tokens(tokens, "tokens")
        offset = 0 if caches is None else caches[0].length
        x = self.embed(tokens)
        if self.pos is not None:
            x = self.pos(x, offset)
        for i, layer in enumerate(self.layers):
            x, _ = layer(x, cache=None if caches is None else caches[i])
        return self.head(self.norm(x))

    @torch.no_grad()
    def generate(self, prompt: Tensor, max_new_tokens: int, *, use_cache: bool = True) -> Tensor:
        """Greedy continuation: (B, T0) -> (B, T0 + max_new_tokens). ``use_cache=False``
        recomputes the whole prefix every step (the reference the cache is checked against)."""
        _check_tokens(prompt, "prompt")
        if prompt.shape[1] + max_new_tokens > self.max_len:
            raise UsageError(
                f"prompt ({prompt.shape[1]}) + max_new_tokens ({max_new_tokens}) > max_len "
                f"({self.max_len})"
            )
        seq = prompt
        caches = self.new_caches() if use_cache else None
        inp = prompt
        for _ in range(max_new_tokens):
            logits = self(inp if use_cache else seq, caches)
            nxt = logits[:, -1].argmax(-1, keepdim=True)  # (B, 1)
            seq = torch.cat([seq, nxt], dim=1)
            inp = nxt
        return seq
