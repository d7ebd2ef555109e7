"""Attention building blocks as drop-in ``torch.nn`` modules: SDPA, masks, multi-head attention
(GQA/MQA, KV cache), pooling, positional encodings, Transformer blocks; and the experiments
behind ``wirelab attention``.

Quickstart: grouped-query attention on a random batch, one KV-cache decode step (equal to the
uncached computation), attention pooling of a set:

```python
import torch
from wirelab.attention import AttentionPool, KVCache, MultiHeadAttention

_ = torch.manual_seed(0)  # (assigned: a pasted line prints nothing)
x = torch.randn(2, 10, 64)                                 # (batch, length, dim)
mha = MultiHeadAttention(64, num_heads=8, num_kv_heads=2)  # GQA: 4 query heads per K/V head
out, _ = mha(x, causal=True)                               # (2, 10, 64)
cache = KVCache()
_ = mha(x, causal=True, cache=cache)                       # the prompt fills the cache
token = torch.randn(2, 1, 64)
step, _ = mha(token, causal=True, cache=cache)             # one new token: 11 keys attended
full, _ = mha(torch.cat([x, token], dim=1), causal=True)   # the same without a cache
print("cached == uncached:", torch.allclose(step, full[:, -1:], atol=1e-6), cache)
pooled, weights = AttentionPool(64, num_heads=4)(x)       # (2, 64), (2, 4, 1, 10)
print("output", tuple(out.shape), "pooled", tuple(pooled.shape), "weights", tuple(weights.shape))
```

Shapes: ``(B, T, C)`` for modules, ``(B, H, T, D)`` for `scaled_dot_product_attention`. Mask
convention throughout: boolean, broadcastable to (B, H, Tq, Tk), **True = attend** (torch's
``nn.MultiheadAttention`` masks are True = ignore: convert with `from_torch_mask`).
`MultiHeadAttention` keeps torch's parameter names: `MultiHeadAttention.from_torch` copies a
``torch.nn.MultiheadAttention``, and ``load_state_dict`` loads a torch model's state dict into
the same model built with `MultiHeadAttention` (same outputs, ``tests/attention/test_api.py``).
"""

from wirelab.attention.blocks import (
    DecoderLayer,
    DecoderOnly,
    EncoderDecoder,
    EncoderLayer,
    LayerCache,
)
from wirelab.attention.functional import reference_attention, scaled_dot_product_attention
from wirelab.attention.kv_cache import KVCache
from wirelab.attention.masks import (
    causal_mask,
    combine_masks,
    from_torch_mask,
    padding_mask,
    padding_mask_from_lengths,
    sliding_window_mask,
    to_torch_mask,
)
from wirelab.attention.mha import MultiHeadAttention
from wirelab.attention.pooling import AttentionPool, MeanPool
from wirelab.attention.positional import (
    LearnedPositionalEmbedding,
    RotaryEmbedding,
    SinusoidalPositionalEncoding,
    alibi_bias,
    alibi_slopes,
    half_to_interleaved,
    interleaved_to_half,
    relative_shift_matrix,
    sinusoidal_encoding,
)

__all__ = [
    "AttentionPool",
    "DecoderLayer",
    "DecoderOnly",
    "EncoderDecoder",
    "EncoderLayer",
    "KVCache",
    "LayerCache",
    "LearnedPositionalEmbedding",
    "MeanPool",
    "MultiHeadAttention",
    "RotaryEmbedding",
    "SinusoidalPositionalEncoding",
    "alibi_bias",
    "alibi_slopes",
    "causal_mask",
    "combine_masks",
    "from_torch_mask",
    "half_to_interleaved",
    "interleaved_to_half",
    "padding_mask",
    "padding_mask_from_lengths",
    "reference_attention",
    "relative_shift_matrix",
    "scaled_dot_product_attention",
    "sinusoidal_encoding",
    "sliding_window_mask",
    "to_torch_mask",
]
