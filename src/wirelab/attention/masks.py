"""Boolean attention masks, one convention: **True = attend**, broadcastable to (B, H, Tq, Tk).

torch's ``nn.MultiheadAttention`` (``key_padding_mask``, boolean ``attn_mask``) uses the opposite,
"True = ignore"; `from_torch_mask` / `to_torch_mask` convert.
``F.scaled_dot_product_attention`` uses True = attend, like wirelab.

Causal masks are aligned **bottom-right**: with ``Tq`` queries and ``Tk >= Tq`` keys, query ``i``
sits at absolute position ``p = Tk - Tq + i`` (the end of the key sequence, as in cached decoding)
and attends keys ``j <= p``. For ``Tq == Tk`` this is the usual lower-triangular mask.
"""

from __future__ import annotations

import torch
from torch import Tensor

from wirelab.errors import UsageError

__all__ = [
    "causal_mask",
    "combine_masks",
    "from_torch_mask",
    "padding_mask",
    "padding_mask_from_lengths",
    "sliding_window_mask",
    "to_torch_mask",
]


def padding_mask(tokens: Tensor, pad_id: int) -> Tensor:
    """(B, Tk) token ids -> (B, 1, 1, Tk) mask, True where the key is a real token.

    Example: ``padding_mask(torch.tensor([[5, 3, 0]]), pad_id=0)`` -> ``[[[[True, True, False]]]]``.
    """
    if tokens.dim() != 2:
        raise UsageError(f"tokens must be (batch, length), got shape {tuple(tokens.shape)}")
    return (tokens != pad_id)[:, None, None, :]


def padding_mask_from_lengths(lengths: Tensor, max_len: int) -> Tensor:
    """(B,) lengths -> (B, 1, 1, max_len) mask, True at positions ``< length``.

    Example: ``padding_mask_from_lengths(torch.tensor([2, 3]), 3)`` -> shape (2, 1, 1, 3).
    """
    if lengths.dim() != 1:
        raise UsageError(f"lengths must be 1-D, got shape {tuple(lengths.shape)}")
    if bool((lengths < 0).any()) or bool((lengths > max_len).any()):
        raise UsageError(f"lengths must lie in [0, {max_len}]")
    pos = torch.arange(max_len, device=lengths.device)
    return (pos[None, :] < lengths[:, None])[:, None, None, :]


def _positions(tq: int, tk: int, device: torch.device | None) -> tuple[Tensor, Tensor]:
    if tq < 0 or tk < 0:
        raise UsageError(f"lengths must be >= 0, got Tq={tq}, Tk={tk}")
    if tq > tk:
        raise UsageError(
            f"causal masks need Tq <= Tk (queries at the end of the keys), got {tq} > {tk}"
        )
    qpos = torch.arange(tk - tq, tk, device=device)[:, None]  # (Tq, 1) absolute positions
    kpos = torch.arange(tk, device=device)[None, :]  # (1, Tk)
    return qpos, kpos


def causal_mask(tq: int, tk: int | None = None, *, device: torch.device | None = None) -> Tensor:
    """(Tq, Tk) mask, True where key ``j <= Tk - Tq + i`` (bottom-right aligned, see module doc).

    Example: ``causal_mask(3)`` is lower-triangular; ``causal_mask(1, 5)`` is all True (a new
    token after 4 cached ones).
    """
    tk = tq if tk is None else tk
    qpos, kpos = _positions(tq, tk, device)
    return kpos <= qpos


def sliding_window_mask(
    tq: int,
    tk: int | None = None,
    window: int = 1,
    *,
    causal: bool = True,
    device: torch.device | None = None,
) -> Tensor:
    """(Tq, Tk) mask for local attention (bottom-right aligned like `causal_mask`).

    causal=True: query at position p attends keys ``p - window < j <= p`` (``window`` keys, itself
    included, as in Mistral's sliding window). causal=False: ``|j - p| <= window``.

    Example: ``sliding_window_mask(6, window=2)`` -> (6, 6), two True per row from row 1 on.
    """
    if window < 1:
        raise UsageError(f"window must be >= 1, got {window}")
    tk = tq if tk is None else tk
    qpos, kpos = _positions(tq, tk, device)
    if causal:
        return (kpos <= qpos) & (kpos > qpos - window)
    return (kpos - qpos).abs() <= window


def combine_masks(*masks: Tensor | None) -> Tensor | None:
    """Logical AND of the given masks (None entries are skipped); None if all are None. The
    result broadcasts like its parts: ``(Tq, Tk) & (B, 1, 1, Tk) -> (B, 1, Tq, Tk)``.

    Example: ``combine_masks(causal_mask(4), padding_mask(tokens, 0))`` for tokens (B, 4).
    """
    out: Tensor | None = None
    for m in masks:
        if m is None:
            continue
        if m.dtype != torch.bool:
            raise UsageError(f"masks must be boolean (True = attend), got {m.dtype}")
        out = m if out is None else out & m
    return out


def from_torch_mask(
    attn_mask: Tensor | None = None,
    key_padding_mask: Tensor | None = None,
    num_heads: int | None = None,
) -> Tensor | None:
    """Convert ``nn.MultiheadAttention`` masks ("True = ignore") to a wirelab mask (True = attend).

    attn_mask: bool (Tq, Tk) or (B*num_heads, Tq, Tk); key_padding_mask: bool (B, Tk).
    Returns a mask broadcastable to (B, H, Tq, Tk): ``True = attend = not ignored``.

    Example:
        ```python
        pad = torch.tensor([[False, False, True]])  # torch: True = ignore the third key
        mask = from_torch_mask(key_padding_mask=pad)  # (1, 1, 1, 3): [True, True, False]
        ```
    """
    parts: list[Tensor] = []
    if attn_mask is not None:
        if attn_mask.dtype != torch.bool:
            raise UsageError("only boolean torch masks can be converted (float masks are additive)")
        if attn_mask.dim() == 2:
            parts.append(~attn_mask)
        elif attn_mask.dim() == 3:
            if num_heads is None:
                raise UsageError("a 3-D attn_mask (B*H, Tq, Tk) needs num_heads")
            bh, tq, tk = attn_mask.shape
            parts.append(~attn_mask.view(bh // num_heads, num_heads, tq, tk))
        else:
            raise UsageError(f"attn_mask must be 2-D or 3-D, got {attn_mask.dim()}-D")
    if key_padding_mask is not None:
        if key_padding_mask.dtype != torch.bool or key_padding_mask.dim() != 2:
            raise UsageError("key_padding_mask must be a boolean (B, Tk) tensor")
        parts.append(~key_padding_mask[:, None, None, :])
    return combine_masks(*parts)


def to_torch_mask(mask: Tensor) -> Tensor:
    """wirelab mask (True = attend) -> torch's "True = ignore" convention: ``~mask``, same shape.

    Example: ``nn.MultiheadAttention(...)(x, x, x, attn_mask=to_torch_mask(causal_mask(T)))``.
    """
    if mask.dtype != torch.bool:
        raise UsageError(f"mask must be boolean, got {mask.dtype}")
    return ~mask
