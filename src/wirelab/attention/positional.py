"""Positional encodings: sinusoidal, learned absolute, rotary (RoPE) and ALiBi.

Sinusoidal (Vaswani et al. 2017, sec. 3.5), with ``omega_i = base^(-2i/d)``::

    PE[p, 2i] = sin(p * omega_i),    PE[p, 2i+1] = cos(p * omega_i)

Each (sin, cos) pair rotates with p, so a fixed offset is a fixed linear map
(`relative_shift_matrix`): PE[p + k] = M_k PE[p] for every p, with M_k block-diagonal,
2x2 blocks [[cos, sin], [-sin, cos]](k omega_i).

RoPE (Su et al. 2021, RoFormer) rotates query/key pairs by angle ``p * omega_i`` so that
<R_m q, R_n k> depends only on ``m - n``. Two layouts pair the channels differently:
``interleaved`` pairs (2i, 2i+1) (RoFormer, GPT-J, Llama's complex-number reference);
``half`` pairs (i, i + d/2) (GPT-NeoX, HF Llama). `interleaved_to_half` / `half_to_interleaved`
permute channels between them (apply them to the rows of W_q and W_k to convert checkpoints).

ALiBi (Press et al. 2022, "Train Short, Test Long"): no embedding; head h adds ``-m_h * (i - j)``
to the score of query i and key j. For n heads a power of two, ``m_h = 2^(-8 h / n)``, h = 1..n.
Otherwise take the slopes for the closest power of two below, 2^floor(log2 n), plus every other
slope of the 2x case (the paper's reference code, ``get_slopes``).

`ENCODINGS` is the registry of encodings that models and ``wirelab attention positional`` choose
from by name. Every entry is a `PositionalEncoding` class whose ``kind`` says where it acts:

- ``"input"``: ``enc(x, offset) -> x + PE`` on the token embeddings (B, T, C), before the blocks;
- ``"qk"``: ``enc(t, offset) -> t'`` on self-attention queries and keys (B, H, T, D);
- ``"bias"``: ``enc.bias(tq, tk, causal=..., device=...) -> (H, Tq, Tk)`` added to the scores.

Adding an encoding is one class (a ``kind`` and a ``build(spec)``) plus one ``ENCODINGS.add`` line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import Tensor, nn

from wirelab.errors import UsageError
from wirelab.registry import Registry

__all__ = [
    "ENCODINGS",
    "AlibiBias",
    "LearnedPositionalEmbedding",
    "PositionalEncoding",
    "PositionalSpec",
    "RotaryEmbedding",
    "SinusoidalPositionalEncoding",
    "alibi_bias",
    "alibi_slopes",
    "half_to_interleaved",
    "interleaved_to_half",
    "relative_shift_matrix",
    "sinusoidal_encoding",
]


INPUT, QK, BIAS = "input", "qk", "bias"


@dataclass(frozen=True)
class PositionalSpec:
    """What a model tells an encoding when it builds one: width C, heads H, maximum length, base
    of the frequencies, RoPE channel layout. The head dim is D = C / H."""

    dim: int
    num_heads: int = 1
    max_len: int = 4096
    base: float = 10000.0
    rope_layout: str = "half"

    @property
    def head_dim(self) -> int:
        return self.dim // self.num_heads


class PositionalEncoding(nn.Module):
    """Base of the registered encodings; ``kind`` is ``"input"``, ``"qk"`` or ``"bias"`` (see the
    module docstring for the call each kind answers)."""

    kind: ClassVar[str] = INPUT

    @classmethod
    def build(cls, spec: PositionalSpec) -> PositionalEncoding:
        """An instance for a model described by ``spec``."""
        raise NotImplementedError

    def bias(
        self, tq: int, tk: int, *, causal: bool = True, device: torch.device | None = None
    ) -> Tensor:
        """(H, Tq, Tk) additive score bias (``"bias"`` encodings only)."""
        raise NotImplementedError(f"{type(self).__name__} is not a score bias")


def _frequencies(dim: int, base: float, dtype: torch.dtype = torch.float64) -> Tensor:
    if dim < 2 or dim % 2:
        raise UsageError(f"positional encodings need an even dim >= 2, got {dim}")
    return base ** (-torch.arange(0, dim, 2, dtype=dtype) / dim)  # (dim/2,) omega_i


def sinusoidal_encoding(
    length: int,
    dim: int,
    base: float = 10000.0,
    *,
    offset: int = 0,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """(length, dim) table PE[p], p = offset .. offset+length-1 (sin: even, cos: odd channels):
    ``PE[p, 2i] = sin(p omega_i)``, ``PE[p, 2i+1] = cos(p omega_i)``, ``omega_i = base^(-2i/dim)``.

    Example: ``sinusoidal_encoding(10, 16)`` -> (10, 16); row 0 is ``[0, 1, 0, 1, ...]``.
    """
    omega = _frequencies(dim, base)  # (dim/2,)
    p = torch.arange(offset, offset + length, dtype=torch.float64)[:, None]  # (T, 1)
    angle = p * omega  # (T, dim/2)
    pe = torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(length, dim)  # (T, dim)
    return pe.to(dtype)


def relative_shift_matrix(
    offset: int | float, dim: int, base: float = 10000.0, *, dtype: torch.dtype = torch.float64
) -> Tensor:
    """(dim, dim) block-diagonal M with PE[p + offset] = M @ PE[p] for every p.

    Block i is [[cos(k w_i), sin(k w_i)], [-sin(k w_i), cos(k w_i)]] since
    sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b.

    Example:
        ```python
        pe = sinusoidal_encoding(20, 8, dtype=torch.float64)
        assert torch.allclose(pe[:-3] @ relative_shift_matrix(3, 8).T, pe[3:])  # M PE[p]
        ```
    """
    omega = _frequencies(dim, base)
    c, s = (offset * omega).cos(), (offset * omega).sin()  # (dim/2,)
    m = torch.zeros(dim, dim, dtype=torch.float64)
    idx = torch.arange(0, dim, 2)
    m[idx, idx], m[idx, idx + 1] = c, s
    m[idx + 1, idx], m[idx + 1, idx + 1] = -s, c
    return m.to(dtype)


def _check_input(x: Tensor, dim: int, offset: int, max_len: int) -> int:
    """The length T of token embeddings x (B, T, dim) at positions offset.., or a `UsageError`."""
    if x.dim() != 3 or x.shape[-1] != dim:
        raise UsageError(
            f"positional encoding built for dim {dim} expects (batch, length, {dim}), "
            f"got shape {tuple(x.shape)}"
        )
    t = x.shape[1]
    if offset < 0 or offset + t > max_len:
        raise UsageError(
            f"positions {offset}..{offset + t - 1} outside 0..{max_len - 1} (max_len={max_len})"
        )
    return t


class SinusoidalPositionalEncoding(PositionalEncoding):
    """Adds PE[offset : offset + T] to x: (B, T, C) -> (B, T, C). Table cached up to ``max_len``;
    PE is `sinusoidal_encoding`.

    Example: ``SinusoidalPositionalEncoding(32)(torch.randn(2, 10, 32), offset=5)`` -> (2, 10, 32).
    """

    kind = INPUT
    pe: Tensor

    @classmethod
    def build(cls, spec: PositionalSpec) -> SinusoidalPositionalEncoding:
        return cls(spec.dim, spec.max_len, spec.base)

    def __init__(self, dim: int, max_len: int = 4096, base: float = 10000.0) -> None:
        super().__init__()
        self.dim, self.max_len, self.base = dim, max_len, base
        self.register_buffer("pe", sinusoidal_encoding(max_len, dim, base), persistent=False)

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        t = _check_input(x, self.dim, offset, self.max_len)
        return x + self.pe[offset : offset + t].to(x.dtype)


class LearnedPositionalEmbedding(PositionalEncoding):
    """Adds a learned vector per absolute position: ``x + E[offset : offset + T]``,
    (B, T, C) -> (B, T, C), ``E`` (max_len, C).

    Example: ``LearnedPositionalEmbedding(32, max_len=64)(torch.randn(2, 10, 32))`` -> (2, 10, 32).
    """

    kind = INPUT

    @classmethod
    def build(cls, spec: PositionalSpec) -> LearnedPositionalEmbedding:
        return cls(spec.dim, spec.max_len)

    def __init__(self, dim: int, max_len: int) -> None:
        super().__init__()
        self.dim, self.max_len = dim, max_len
        self.embedding = nn.Embedding(max_len, dim)
        nn.init.normal_(self.embedding.weight, std=0.02)

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        t = _check_input(x, self.dim, offset, self.max_len)
        pos = torch.arange(offset, offset + t, device=x.device)
        return x + self.embedding(pos)


def interleaved_to_half(x: Tensor) -> Tensor:
    """Permute the last dim from pairs (2i, 2i+1) to pairs (i, i + d/2): (..., d) -> (..., d).

    Example: ``interleaved_to_half(torch.arange(6))`` -> ``[0, 2, 4, 1, 3, 5]``.
    """
    return torch.cat([x[..., 0::2], x[..., 1::2]], dim=-1)


def half_to_interleaved(x: Tensor) -> Tensor:
    """Inverse of `interleaved_to_half`: pairs (i, i + d/2) -> (2i, 2i+1), (..., d) -> (..., d).

    Example: ``half_to_interleaved(torch.tensor([0, 2, 4, 1, 3, 5]))`` -> ``[0, 1, 2, 3, 4, 5]``.
    """
    d = x.shape[-1] // 2
    return torch.stack([x[..., :d], x[..., d:]], dim=-1).flatten(-2)


class RotaryEmbedding(PositionalEncoding):
    """Rotary position embedding on (B, H, T, D) queries/keys at absolute positions.

    For channel pair (a, b) with frequency w_i at position p:
        a' = a cos(p w_i) - b sin(p w_i),    b' = a sin(p w_i) + b cos(p w_i)

    Example: ``RotaryEmbedding(16)(torch.randn(2, 4, 10, 16), offset=3)`` -> (2, 4, 10, 16);
    inside attention use ``MultiHeadAttention(..., positional="rope")``.
    """

    kind = QK
    inv_freq: Tensor

    @classmethod
    def build(cls, spec: PositionalSpec) -> RotaryEmbedding:
        return cls(spec.head_dim, spec.base, spec.rope_layout)

    def __init__(self, head_dim: int, base: float = 10000.0, layout: str = "half") -> None:
        super().__init__()
        if layout not in ("half", "interleaved"):
            raise UsageError(f"RoPE layout must be 'half' or 'interleaved', got {layout!r}")
        self.head_dim, self.base, self.layout = head_dim, base, layout
        self.register_buffer("inv_freq", _frequencies(head_dim, base).float(), persistent=False)

    def angles(self, positions: Tensor) -> tuple[Tensor, Tensor]:
        """positions (T,) -> cos, sin of shape (T, D/2)."""
        ang = positions.to(torch.float64)[:, None] * self.inv_freq.double()[None, :]  # (T, D/2)
        return ang.cos(), ang.sin()

    def forward(self, x: Tensor, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        if x.shape[-1] != self.head_dim:
            raise UsageError(f"RoPE built for head_dim {self.head_dim}, got {x.shape[-1]}")
        t = x.shape[-2]
        if positions is None:
            positions = torch.arange(offset, offset + t, device=x.device)
        cos, sin = self.angles(positions)
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # (T, D/2)
        if self.layout == "half":
            d = self.head_dim // 2
            a, b = x[..., :d], x[..., d:]  # (..., T, D/2)
            return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


def alibi_slopes(num_heads: int) -> Tensor:
    """(H,) ALiBi slopes (Press et al. 2022): ``m_h = 2^(-8 h / H)`` for H a power of two
    (module docstring for other H).

    Example: ``alibi_slopes(4)`` -> ``[0.25, 0.0625, 0.015625, 0.00390625]``.
    """
    if num_heads < 1:
        raise UsageError(f"num_heads must be >= 1, got {num_heads}")

    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    if math.log2(num_heads).is_integer():
        slopes = power_of_two(num_heads)
    else:
        closest = 2 ** math.floor(math.log2(num_heads))
        slopes = power_of_two(closest) + power_of_two(2 * closest)[0::2][: num_heads - closest]
    return torch.tensor(slopes, dtype=torch.float32)


def alibi_bias(
    num_heads: int,
    tq: int,
    tk: int | None = None,
    *,
    causal: bool = True,
    device: torch.device | None = None,
) -> Tensor:
    """(H, Tq, Tk) additive bias -m_h * distance, queries aligned at the end of the keys.

    causal=True uses distance (p - j) (keys after the query get a positive value: mask them);
    causal=False uses |p - j| (the symmetric variant for encoders).

    Example: ``alibi_bias(8, 1, 5)`` -> (8, 1, 5), the bias of one new token over 5 keys; inside
    attention use ``MultiHeadAttention(..., positional="alibi")``.
    """
    tk = tq if tk is None else tk
    qpos = torch.arange(tk - tq, tk, device=device)[:, None]
    kpos = torch.arange(tk, device=device)[None, :]
    dist = (qpos - kpos).float()
    if not causal:
        dist = dist.abs()
    slopes = alibi_slopes(num_heads).to(device)
    return -slopes[:, None, None] * dist  # (H, Tq, Tk)


class AlibiBias(PositionalEncoding):
    """ALiBi as a score bias: ``bias(tq, tk) -> (H, Tq, Tk)``, see `alibi_bias`."""

    kind = BIAS

    def __init__(self, num_heads: int) -> None:
        super().__init__()
        self.num_heads = num_heads

    @classmethod
    def build(cls, spec: PositionalSpec) -> AlibiBias:
        return cls(spec.num_heads)

    def bias(
        self, tq: int, tk: int, *, causal: bool = True, device: torch.device | None = None
    ) -> Tensor:
        return alibi_bias(self.num_heads, tq, tk, causal=causal, device=device)


ENCODINGS = Registry[type[PositionalEncoding]]("positional encoding")
ENCODINGS.add("sinusoidal", SinusoidalPositionalEncoding, "fixed sines and cosines, added (input)")
ENCODINGS.add("learned", LearnedPositionalEmbedding, "a learned vector per position (input)")
ENCODINGS.add("rope", RotaryEmbedding, "rotary: rotates queries and keys (qk)")
ENCODINGS.add("alibi", AlibiBias, "linear distance bias on the scores (bias)")
