from __future__ import annotations

import math

import pytest
import torch

from wirelab.attention import (
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
from wirelab.errors import UsageError


def test_sinusoidal_matches_vaswani_formula():
    pe = sinusoidal_encoding(50, 16, dtype=torch.float64)
    for p in (0, 7, 49):
        for i in range(8):
            ang = p / 10000 ** (2 * i / 16)
            assert pe[p, 2 * i].item() == pytest.approx(math.sin(ang), abs=1e-12)
            assert pe[p, 2 * i + 1].item() == pytest.approx(math.cos(ang), abs=1e-12)
    assert torch.allclose(sinusoidal_encoding(5, 16, offset=7, dtype=torch.float64), pe[7:12])


@pytest.mark.parametrize("base", [10000.0, 500.0])
@pytest.mark.parametrize("offset", [1, 5, -3, 40])
def test_relative_shift_property_float64(base, offset):
    pe = sinusoidal_encoding(300, 64, base, dtype=torch.float64)  # (T, d)
    m = relative_shift_matrix(offset, 64, base)
    lo, hi = max(0, -offset), min(300, 300 - offset)
    shifted = pe[lo:hi] @ m.T  # rows: M PE[p]
    assert (shifted - pe[lo + offset : hi + offset]).abs().max().item() < 1e-10
    # M is orthogonal and M_a M_b = M_{a+b}
    assert torch.allclose(m @ m.T, torch.eye(64, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(
        relative_shift_matrix(2, 64, base) @ relative_shift_matrix(3, 64, base),
        relative_shift_matrix(5, 64, base),
        atol=1e-12,
    )


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_rope_scores_depend_only_on_relative_position(layout):
    rope = RotaryEmbedding(16, layout=layout)
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 1, 1, 16, generator=g), torch.randn(1, 1, 1, 16, generator=g)

    def score(m: int, n: int) -> float:
        qm = rope(q.double(), positions=torch.tensor([m]))
        kn = rope(k.double(), positions=torch.tensor([n]))
        return float((qm * kn).sum())

    for m, n in [(3, 1), (10, 2), (50, 50), (0, 7)]:
        for shift in (1, 17, 300):
            assert score(m + shift, n + shift) == pytest.approx(score(m, n), abs=1e-9)
    assert abs(score(5, 0) - score(0, 0)) > 1e-3  # it does depend on the offset
    assert torch.allclose(rope(q, offset=0), q)  # position 0 is the identity


def test_rope_layout_converters():
    x = torch.randn(2, 3, 5, 8)
    assert torch.equal(half_to_interleaved(interleaved_to_half(x)), x)
    half, inter = RotaryEmbedding(8, layout="half"), RotaryEmbedding(8, layout="interleaved")
    got = interleaved_to_half(inter(x, offset=4))
    want = half(interleaved_to_half(x), offset=4)
    assert torch.allclose(got, want, atol=1e-6)


def test_alibi_slopes_follow_press_et_al():
    s8 = alibi_slopes(8)
    assert torch.allclose(s8, torch.tensor([2.0 ** -(i + 1) for i in range(8)]))
    s12 = alibi_slopes(12)
    # 8 heads' slopes, then every other slope of the 16-head sequence 2^(-k/2): k = 1, 3, 5, 7
    want = [2.0 ** -(i + 1) for i in range(8)] + [2.0 ** (-k / 2) for k in (1, 3, 5, 7)]
    assert torch.allclose(s12, torch.tensor(want))
    assert len(set(s12.tolist())) == 12
    b = alibi_bias(8, 3, 5)
    assert b.shape == (8, 3, 5)
    assert b[0, 2, 4].item() == 0.0  # last query (position 4) to itself
    assert b[0, 0, 0].item() == pytest.approx(-0.5 * 2)  # query at position 2, key 0


def test_modules_add_positions_and_check_lengths():
    x = torch.zeros(2, 4, 8)
    sin = SinusoidalPositionalEncoding(8, max_len=10)
    assert torch.allclose(sin(x, offset=3)[0], sinusoidal_encoding(4, 8, offset=3))
    learned = LearnedPositionalEmbedding(8, 10)
    assert torch.equal(learned(x, 2)[1], learned.embedding.weight[2:6])
    with pytest.raises(UsageError, match="max_len"):
        sin(x, offset=8)
    with pytest.raises(UsageError, match="even dim"):
        sinusoidal_encoding(3, 7)
    with pytest.raises(UsageError, match="layout"):
        RotaryEmbedding(8, layout="bogus")
