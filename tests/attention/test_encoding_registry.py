"""Adding a positional encoding is one class plus one registry line: a toy encoding registered
here runs through ``wirelab attention positional`` and inside the models, then is removed."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import torch
from torch import Tensor

from tests.clirun import wirelab
from wirelab.attention import DecoderOnly, MultiHeadAttention
from wirelab.attention.positional import ENCODINGS, PositionalEncoding, PositionalSpec


class NearbyBias(PositionalEncoding):
    """Toy score bias: -0.1 |i - j| for every head, queries aligned at the end of the keys."""

    kind = "bias"

    def __init__(self, num_heads: int) -> None:
        super().__init__()
        self.num_heads = num_heads

    @classmethod
    def build(cls, spec: PositionalSpec) -> NearbyBias:
        return cls(spec.num_heads)

    def bias(
        self, tq: int, tk: int, *, causal: bool = True, device: torch.device | None = None
    ) -> Tensor:
        q = torch.arange(tk - tq, tk, device=device)[:, None]
        k = torch.arange(tk, device=device)[None, :]
        return (-0.1 * (q - k).abs().float()).expand(self.num_heads, tq, tk)  # (H, Tq, Tk)


@pytest.fixture
def toy() -> Iterator[str]:
    ENCODINGS.add("toy-nearby", NearbyBias, "toy: -0.1 |i - j| on the scores")
    try:
        yield "toy-nearby"
    finally:
        ENCODINGS.remove("toy-nearby")


def test_toy_encoding_runs_through_the_cli(tmp_path, toy) -> None:
    out = tmp_path / "p"
    r = wirelab("attention", "positional", "--out", out, "--length", "64", "--dim", "16",
                "--encodings", f"rope,{toy}")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert f"{toy} (bias) score shift residual" in r.stdout
    enc = json.loads((out / "metrics.json").read_text())["encodings"]
    assert list(enc) == ["rope", toy]
    assert enc[toy]["kind"] == "bias" and enc[toy]["positions"] == 64
    assert enc[toy]["shift_residual"] < 1e-12  # a function of i - j only


def test_toy_encoding_inside_the_models(toy) -> None:
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 2, positional=toy).eval()
    x = torch.randn(1, 6, 16)
    full, _ = mha(x, causal=True)
    plain = MultiHeadAttention(16, 2).eval()
    plain.load_state_dict(mha.state_dict())
    assert not torch.allclose(plain(x, causal=True)[0], full)  # the bias changes the output
    model = DecoderOnly(30, 16, 2, 1, positional=toy, max_len=32).eval()
    tokens = torch.randint(0, 30, (1, 5))
    assert torch.equal(model.generate(tokens, 4), model.generate(tokens, 4, use_cache=False))


def test_removed_encoding_is_refused(tmp_path) -> None:
    assert "toy-nearby" not in ENCODINGS
    r = wirelab("attention", "positional", "--out", tmp_path / "p", "--encodings", "toy-nearby")
    assert r.returncode == 2 and "unknown positional encoding 'toy-nearby'" in r.stderr
    assert not (tmp_path / "p").exists()
