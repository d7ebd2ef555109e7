"""The five layer types of "Why self-attention" (Vaswani et al. 2017, sec. 4, Table 1), as mixing
operations on one sequence x: (n, d) -> (n, d), each with its analytic FLOP count, its fast
implementation (timed) and a readable reference (FLOP-counted, checked equal).

| layer                       | FLOPs (multiply-add = 2) | paper: per layer, sequential, path |
|-----------------------------|--------------------------|------------------------------------|
| self-attention              | 4 n^2 d (QK^T and AV)    | O(n^2 d), O(1), O(1)               |
| recurrent (Elman, tanh)     | 4 n d^2 (W h and U x)    | O(n d^2), O(n), O(n)               |
| convolution, kernel k       | 2 k n d^2                | O(k n d^2), O(1), O(n/k) (*)       |
| dilated convolution, causal | 2 k n d^2                | O(k n d^2), O(1), O(log_k n)       |
| restricted self-attention r | 4 r n d                  | O(r n d), O(1), O(n/r)             |

Table 1 has one "Convolutional" row, whose path length O(log_k(n)) is that of *dilated*
convolutions; (*) the O(n/k) layers for contiguous kernels is stated in the text of section 4
only. `PAPER` holds each bound with where it is written.

Projections to queries/keys/values are left out, as in the paper's per-layer count; attention
with projections would add 8 n d^2.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from wirelab.attention.functional import reference_attention, scaled_dot_product_attention

LAYERS = (
    "self_attention",
    "recurrent",
    "convolution",
    "dilated_convolution",
    "restricted_attention",
)

TABLE1 = "Vaswani et al. 2017, Table 1"
_CONV = f"{TABLE1}, row Convolutional"
SEC4_CONTIGUOUS = "Vaswani et al. 2017, sec. 4 text (contiguous kernels: O(n/k) layers)"

# layer -> {"complexity" | "sequential" | "path": (bound, where the paper states it)}
PAPER: dict[str, dict[str, tuple[str, str]]] = {
    "self_attention": {
        "complexity": ("O(n^2 d)", f"{TABLE1}, row Self-Attention"),
        "sequential": ("O(1)", f"{TABLE1}, row Self-Attention"),
        "path": ("O(1)", f"{TABLE1}, row Self-Attention"),
    },
    "recurrent": {
        "complexity": ("O(n d^2)", f"{TABLE1}, row Recurrent"),
        "sequential": ("O(n)", f"{TABLE1}, row Recurrent"),
        "path": ("O(n)", f"{TABLE1}, row Recurrent"),
    },
    "convolution": {
        "complexity": ("O(k n d^2)", _CONV),
        "sequential": ("O(1)", _CONV),
        "path": ("O(n/k)", SEC4_CONTIGUOUS),
    },
    "dilated_convolution": {
        "complexity": ("O(k n d^2)", _CONV),
        "sequential": ("O(1)", _CONV),
        "path": ("O(log_k n)", f"{_CONV} (dilated convolutions, sec. 4)"),
    },
    "restricted_attention": {
        "complexity": ("O(r n d)", f"{TABLE1}, row Self-Attention (restricted)"),
        "sequential": ("O(1)", f"{TABLE1}, row Self-Attention (restricted)"),
        "path": ("O(n/r)", f"{TABLE1}, row Self-Attention (restricted)"),
    },
}


def call_bytes(n: int, d: int, k: int, r: int) -> int:
    """A lower bound of the memory the layers need at (n, d): the weights W, U (d, d) and the
    kernel (d, d, k), input and output (n, d), restricted attention's scores (n, r) and key
    positions (n, r) int64 (float32 otherwise)."""
    return 4 * (2 + k) * d * d + 8 * n * d + 12 * n * r


def analytic_flops(layer: str, n: int, d: int, k: int, r: int) -> int:
    return {
        "self_attention": 4 * n * n * d,
        "recurrent": 4 * n * d * d,
        "convolution": 2 * k * n * d * d,
        "dilated_convolution": 2 * k * n * d * d,
        "restricted_attention": 4 * r * n * d,
    }[layer]


def self_attention(x: Tensor) -> Tensor:
    """softmax(x x^T / sqrt d) x with the fused kernel. x: (n, d)."""
    q = x[None, None]  # (1, 1, n, d)
    return scaled_dot_product_attention(q, q, q)[0, 0]


def self_attention_ref(x: Tensor) -> Tensor:
    q = x[None, None]
    return reference_attention(q, q, q)[0][0, 0]


def recurrent(x: Tensor, w: Tensor, u: Tensor) -> Tensor:
    """h_t = tanh(h_{t-1} W + x_t U) with torch's fused RNN loop. x: (n, d) -> (n, d)."""
    out, _ = torch._VF.rnn_tanh(
        x[:, None], torch.zeros(1, 1, w.shape[0]), [u.T, w.T], False, 1, 0.0, False, False, False
    )
    return out[:, 0]


def recurrent_ref(x: Tensor, w: Tensor, u: Tensor) -> Tensor:
    h = torch.zeros(1, w.shape[0])
    out = []
    for t in range(x.shape[0]):  # n sequential steps
        h = torch.tanh(h @ w + x[t : t + 1] @ u)
        out.append(h)
    return torch.cat(out)


def _pads(k: int, dilation: int, causal: bool) -> tuple[int, int]:
    span = dilation * (k - 1)
    return (span, 0) if causal else (span // 2, span - span // 2)


def convolution(x: Tensor, w: Tensor, dilation: int = 1, causal: bool = False) -> Tensor:
    """1-D convolution, kernel w: (d, d, k), x: (n, d) -> (n, d); centred, or causal (taps at
    i, i - dilation, ..., as in WaveNet's dilated stacks)."""
    left, right = _pads(w.shape[-1], dilation, causal)
    xp = F.pad(x.T[None], (left, right))  # (1, d, n + span)
    return F.conv1d(xp, w, dilation=dilation)[0].T


def convolution_ref(x: Tensor, w: Tensor, dilation: int = 1, causal: bool = False) -> Tensor:
    k = w.shape[-1]
    n = x.shape[0]
    left, right = _pads(k, dilation, causal)
    xp = F.pad(x, (0, 0, left, right))  # (n + span, d)
    out = torch.zeros(n, w.shape[0])
    for j in range(k):  # one (n, d) @ (d, d) product per tap
        out = out + xp[j * dilation : j * dilation + n] @ w[:, :, j].T
    return out


def restricted_attention(x: Tensor, r: int) -> Tensor:
    """Each position attends the r keys centred on it (zero-padded ends are masked): O(r n d).

    Keys are gathered into windows (n, r, d) with `unfold` (a view), then scores (n, r).
    """
    n, d = x.shape
    left = r // 2
    xp = F.pad(x, (0, 0, left, r - 1 - left))  # (n + r - 1, d)
    win = xp.unfold(0, r, 1).transpose(1, 2)  # (n, r, d) view
    scores = torch.einsum("nd,nrd->nr", x, win) / math.sqrt(d)  # (n, r)
    pos = torch.arange(n)[:, None] + torch.arange(r)[None, :] - left  # key positions
    scores = scores.masked_fill((pos < 0) | (pos >= n), float("-inf"))
    return torch.einsum("nr,nrd->nd", torch.softmax(scores, -1), win)


def restricted_attention_ref(x: Tensor, r: int) -> Tensor:
    """Full attention with a band mask (O(n^2 d), for checking)."""
    n = x.shape[0]
    left = r // 2
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    band = (j >= i - left) & (j <= i + (r - 1 - left))
    q = x[None, None]
    return reference_attention(q, q, q, band)[0][0, 0]
