from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.errors import UsageError
from wirelab.logic.circuit.pack import pack_bits, unpack_bits


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 300), st.integers(0, 5), st.sampled_from([8, 16, 32, 64]), st.integers(0, 9))
def test_round_trip_any_batch(batch: int, n: int, word_bits: int, seed: int) -> None:
    bits = np.random.default_rng(seed).random((batch, n)) < 0.5
    words = pack_bits(bits, word_bits)
    assert words.shape == (n, -(-batch // word_bits))
    assert words.dtype == np.dtype(f"uint{word_bits}")
    np.testing.assert_array_equal(unpack_bits(words, batch), bits)


def test_bit_layout_is_sample_s_in_bit_s() -> None:
    bits = np.zeros((70, 1), bool)
    bits[[0, 3, 64, 69], 0] = True
    w = pack_bits(bits)
    assert w[0, 0] == 0b1001 and w[0, 1] == (1 | 1 << 5)


def test_padding_is_zero_and_errors() -> None:
    w = pack_bits(np.ones((3, 2), bool), 8)
    assert w.tolist() == [[7], [7]]
    with pytest.raises(UsageError):
        pack_bits(np.ones((3,), bool))
    with pytest.raises(UsageError):
        pack_bits(np.ones((3, 1), bool), 12)
    with pytest.raises(UsageError):
        unpack_bits(w, 9)
