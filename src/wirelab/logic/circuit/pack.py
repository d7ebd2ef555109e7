"""Bit packing: ``(B, n)`` Boolean samples <-> ``(n, W)`` machine words, 64 (or 32, 16, 8) per word.

Sample ``s`` of signal ``j`` is bit ``s % word_bits`` (least significant first) of word
``packed[j, s // word_bits]``; a batch that does not fill the last word is padded with zeros,
and `unpack_bits` drops the padding again.
"""

from __future__ import annotations

import numpy as np

from wirelab.errors import UsageError

WORD_DTYPES = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def word_dtype(word_bits: int) -> type[np.unsignedinteger]:
    if word_bits not in WORD_DTYPES:
        raise UsageError(f"word_bits must be one of {sorted(WORD_DTYPES)}, got {word_bits}")
    return WORD_DTYPES[word_bits]  # type: ignore[return-value]


def num_words(batch: int, word_bits: int = 64) -> int:
    return -(-batch // word_bits)


def pack_bits(bits: np.ndarray, word_bits: int = 64) -> np.ndarray:
    """``(B, n)`` bool -> ``(n, ceil(B / word_bits))`` unsigned words."""
    dtype = word_dtype(word_bits)
    bits = np.asarray(bits, dtype=bool)
    if bits.ndim != 2:
        raise UsageError(f"expected (batch, bits), got shape {bits.shape}")
    batch, n = bits.shape
    w = num_words(batch, word_bits)
    padded = np.zeros((n, w * word_bits), dtype=bool)
    padded[:, :batch] = bits.T
    by = np.packbits(padded, axis=1, bitorder="little")  # (n, W * word_bits / 8)
    return np.ascontiguousarray(by).view(np.dtype(dtype).newbyteorder("<")).astype(dtype)


def unpack_bits(words: np.ndarray, batch: int) -> np.ndarray:
    """``(n, W)`` unsigned words -> ``(batch, n)`` bool."""
    words = np.asarray(words)
    if words.ndim != 2 or words.dtype.kind != "u":
        raise UsageError("expected a 2-D array of unsigned words")
    by = np.ascontiguousarray(words.astype(words.dtype.newbyteorder("<"))).view(np.uint8)
    bits = np.unpackbits(by, axis=1, bitorder="little")  # (n, W * word_bits)
    if batch > bits.shape[1]:
        raise UsageError(f"{words.shape[1]} words hold fewer than {batch} samples")
    return bits[:, :batch].T.astype(bool)
