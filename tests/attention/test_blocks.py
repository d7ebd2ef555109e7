from __future__ import annotations

import pytest
import torch

from wirelab.attention import DecoderOnly, EncoderDecoder
from wirelab.errors import UsageError


@pytest.mark.parametrize("positional", ["rope", "alibi", "sinusoidal", "learned"])
def test_decoder_only_cache_equals_full_forward(positional):
    torch.manual_seed(0)
    m = DecoderOnly(40, 32, 4, 2, num_kv_heads=2, positional=positional, max_len=64).eval()
    tokens = torch.randint(0, 40, (2, 12))
    full = m(tokens)
    caches = m.new_caches(chunk=5)
    step = [m(tokens[:, :4], caches)] + [m(tokens[:, t : t + 1], caches) for t in range(4, 12)]
    assert torch.allclose(torch.cat(step, 1), full, atol=1e-4)
    a = m.generate(tokens[:, :3], 15)
    b = m.generate(tokens[:, :3], 15, use_cache=False)
    assert torch.equal(a, b) and a.shape == (2, 18)


def test_decoder_only_is_causal():
    torch.manual_seed(0)
    m = DecoderOnly(40, 32, 4, 1).eval()
    t = torch.randint(0, 40, (1, 10))
    t2 = t.clone()
    t2[0, 7] = (t[0, 7] + 1) % 40
    assert torch.allclose(m(t)[:, :7], m(t2)[:, :7], atol=1e-6)
    assert not torch.allclose(m(t)[:, 7:], m(t2)[:, 7:])


def test_encoder_decoder_cache_and_padding():
    torch.manual_seed(0)
    m = EncoderDecoder(20, 15, 32, 4, 2).eval()
    src = torch.randint(1, 20, (3, 8))
    src[1, 5:] = 0  # padding
    toks, w = m.greedy_decode(src, bos_id=1, max_len=7, return_weights=True)
    toks2, w2 = m.greedy_decode(src, bos_id=1, max_len=7, use_cache=False, return_weights=True)
    assert torch.equal(toks, toks2)
    assert w is not None and w2 is not None and w.shape == (2, 3, 4, 7, 8)
    assert torch.allclose(w, w2, atol=1e-5)
    assert (w[:, 1, :, :, 5:] == 0).all()  # padding gets no attention
    # teacher-forced logits agree with the decoding steps
    tgt_in = torch.cat([torch.ones(3, 1, dtype=torch.long), toks[:, :-1]], 1)
    assert torch.equal(m(src, tgt_in).argmax(-1), toks)
    # padding content does not matter
    src2 = src.clone()
    src2[1, 5:] = 0
    assert torch.equal(m.greedy_decode(src2, 1, 7)[0], toks)


def test_block_errors():
    with pytest.raises(UsageError, match="positional"):
        DecoderOnly(10, positional="none")
    m = DecoderOnly(10, 16, 2, 1, max_len=8)
    with pytest.raises(UsageError, match="max_len"):
        m.generate(torch.zeros(1, 4, dtype=torch.long), 5)
    with pytest.raises(UsageError, match="integer"):
        m(torch.zeros(1, 4))
