"""Attention building blocks: SDPA, masks, multi-head attention (GQA/MQA, KV cache), pooling,
positional encodings, Transformer blocks; and the experiments behind ``wirelab attention``.

Mask convention throughout: boolean, broadcastable to (B, H, Tq, Tk), **True = attend**.
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
