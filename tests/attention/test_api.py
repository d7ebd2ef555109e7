"""The public API of `wirelab.attention`: every public name documented with a call that runs, and
a user's module swap (torch's ``nn.MultiheadAttention`` -> `MultiHeadAttention`) gives torch's
numbers, with masks, through ``load_state_dict`` and `MultiHeadAttention.from_torch`."""

from __future__ import annotations

import re

import pytest
import torch
from torch import Tensor, nn

import wirelab.attention as attention
from wirelab.attention import MultiHeadAttention, causal_mask, from_torch_mask, to_torch_mask

FENCE = re.compile(r"^\s*```python\n(.*?)^\s*```", re.M | re.S)


def docstring_blocks() -> list[tuple[str, str]]:
    """(name, code) of every ```python block in the docstring of a public name."""
    out = []
    for name in attention.__all__:
        doc = getattr(attention, name).__doc__ or ""
        for code in FENCE.findall(doc):
            lines = code.splitlines()
            indent = min(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip())
            out.append((name, "\n".join(ln[indent:] for ln in lines)))
    return out


def test_every_public_name_has_shapes_and_a_call() -> None:
    for name in attention.__all__:
        doc = getattr(attention, name).__doc__ or ""
        assert "(" in doc and ("Example" in doc or "```python" in doc), name


@pytest.mark.parametrize(("name", "code"), docstring_blocks(), ids=lambda v: str(v)[:20])
def test_docstring_example_runs(name: str, code: str) -> None:
    torch.manual_seed(0)
    namespace = {"torch": torch, "nn": nn, **{n: getattr(attention, n) for n in attention.__all__}}
    exec(compile(code, f"<{name} docstring>", "exec"), namespace)


class UserModel(nn.Module):
    """A user's small encoder: embedding, one attention layer, a head; ``attn`` is either torch's
    ``nn.MultiheadAttention`` or wirelab's `MultiHeadAttention` (the one line that changes)."""

    def __init__(self, attn: nn.Module, vocab: int = 11, dim: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = attn
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens: Tensor, pad: Tensor, causal: Tensor) -> Tensor:
        """tokens (B, T); pad (B, T) and causal (T, T) in torch's convention, True = ignore."""
        x = self.embed(tokens)
        if isinstance(self.attn, nn.MultiheadAttention):
            a, _ = self.attn(x, x, x, key_padding_mask=pad, attn_mask=causal, need_weights=False)
        else:  # wirelab: one mask, True = attend
            a, _ = self.attn(x, mask=from_torch_mask(causal, pad))
        return self.head(self.norm(x + a))


def _batch() -> tuple[Tensor, Tensor, Tensor]:
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(1, 11, (3, 7), generator=g)
    lengths = torch.tensor([7, 5, 2])
    pad = torch.arange(7)[None, :] >= lengths[:, None]  # (B, T) True = padding (ignore)
    return tokens, pad, to_torch_mask(causal_mask(7))  # causal: (T, T) True = ignore


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_swapping_torch_attention_in_a_user_model_keeps_its_numbers(dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    theirs = UserModel(nn.MultiheadAttention(32, 4, batch_first=True)).to(dtype).eval()
    nn.init.normal_(theirs.attn.in_proj_bias, std=0.1)
    nn.init.normal_(theirs.attn.out_proj.bias, std=0.1)
    ours = UserModel(MultiHeadAttention(32, 4)).to(dtype).eval()
    ours.load_state_dict(theirs.state_dict())  # the same parameter names: a plain state dict
    tokens, pad, causal = _batch()
    with torch.no_grad():
        want, got = theirs(tokens, pad, causal), ours(tokens, pad, causal)
    tol = 1e-6 if dtype == torch.float32 else 1e-12
    assert torch.allclose(got, want, atol=tol, rtol=0), (got - want).abs().max()


def test_from_torch_gives_torch_outputs_and_per_head_weights() -> None:
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(32, 4, batch_first=True).eval()
    nn.init.normal_(ref.in_proj_bias, std=0.1)
    ours = MultiHeadAttention.from_torch(ref).eval()
    _, pad, causal = _batch()
    x = torch.randn(3, 7, 32)
    with torch.no_grad():
        want, w_want = ref(
            x, x, x, key_padding_mask=pad, attn_mask=causal, average_attn_weights=False
        )
        got, w = ours(x, mask=from_torch_mask(causal, pad), return_weights=True)
        fused, _ = ours(x, mask=from_torch_mask(causal, pad))
    assert torch.allclose(got, want, atol=1e-6, rtol=0)
    assert torch.allclose(fused, want, atol=1e-6, rtol=0)
    assert w is not None and torch.allclose(w, w_want, atol=1e-6, rtol=0)  # (B, H, T, T)


def test_cross_attention_matches_torch() -> None:
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(32, 4, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(ref).eval()
    x, memory = torch.randn(2, 5, 32), torch.randn(2, 9, 32)
    pad = torch.zeros(2, 9, dtype=torch.bool)
    pad[1, 6:] = True
    with torch.no_grad():
        want, _ = ref(x, memory, memory, key_padding_mask=pad)
        got, _ = ours(x, context=memory, mask=from_torch_mask(key_padding_mask=pad))
    assert torch.allclose(got, want, atol=1e-6, rtol=0)
