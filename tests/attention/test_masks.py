from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.attention import (
    causal_mask,
    combine_masks,
    from_torch_mask,
    padding_mask,
    padding_mask_from_lengths,
    sliding_window_mask,
    to_torch_mask,
)
from wirelab.errors import UsageError

lengths = st.integers(min_value=1, max_value=24)


@settings(max_examples=60, deadline=None)
@given(tk=lengths, data=st.data())
def test_causal_mask_alignment(tk, data):
    tq = data.draw(st.integers(min_value=1, max_value=tk))
    m = causal_mask(tq, tk)
    assert m.shape == (tq, tk)
    for i in range(tq):
        p = tk - tq + i  # absolute position of query i
        assert m[i, : p + 1].all() and not m[i, p + 1 :].any()
    # the last tq rows of the square mask are the rectangular one (cached decoding)
    assert torch.equal(causal_mask(tk)[tk - tq :], m)
    assert m.sum(-1).min() >= 1  # every query attends at least itself


@settings(max_examples=60, deadline=None)
@given(t=lengths, window=st.integers(min_value=1, max_value=30))
def test_sliding_window_properties(t, window):
    m = sliding_window_mask(t, window=window)
    c = causal_mask(t)
    assert not (m & ~c).any()  # inside the causal mask
    assert (m.sum(-1) == torch.clamp(torch.arange(1, t + 1), max=window)).all()
    if window >= t:
        assert torch.equal(m, c)
    sym = sliding_window_mask(t, window=window, causal=False)
    assert torch.equal(sym, sym.T)
    assert sym.diagonal().all()


@settings(max_examples=60, deadline=None)
@given(
    lens=st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=6),
)
def test_padding_masks(lens):
    t = 12
    ln = torch.tensor(lens)
    m = padding_mask_from_lengths(ln, t)
    assert m.shape == (len(lens), 1, 1, t)
    assert torch.equal(m.sum(-1).flatten(), ln)
    tokens = torch.where(m[:, 0, 0], torch.randint(1, 9, (len(lens), t)), torch.zeros(1).long())
    assert torch.equal(padding_mask(tokens, pad_id=0), m)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), t=lengths)
def test_combine_and_convert(seed, t):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(t, t, generator=g) > 0.5
    b = torch.rand(2, t, generator=g) > 0.5
    torch_attn, torch_pad = to_torch_mask(a), to_torch_mask(b)
    ours = from_torch_mask(torch_attn, torch_pad)
    assert ours is not None
    want = combine_masks(a, b[:, None, None, :])
    assert want is not None and torch.equal(ours, want)
    assert torch.equal(ours, a & b[:, None, None, :])
    assert combine_masks(None, a, None) is a
    assert combine_masks(None) is None


def test_from_torch_3d_mask():
    m = torch.rand(2 * 3, 4, 5) > 0.5  # (B*H, Tq, Tk), True = ignore
    ours = from_torch_mask(m, num_heads=3)
    assert ours is not None and ours.shape == (2, 3, 4, 5)
    assert torch.equal(ours.reshape(6, 4, 5), ~m)


def test_mask_errors():
    with pytest.raises(UsageError, match="Tq <= Tk"):
        causal_mask(5, 3)
    with pytest.raises(UsageError, match="window"):
        sliding_window_mask(4, window=0)
    with pytest.raises(UsageError, match="boolean"):
        combine_masks(torch.ones(2, 2))
    with pytest.raises(UsageError, match="lengths"):
        padding_mask_from_lengths(torch.tensor([5]), 3)
