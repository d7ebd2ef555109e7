"""Convolutional logic layers (Petersen et al. 2024, arXiv:2411.04732) on flattened images.

Images are feature-major and flattened in ``(H, W, C)`` order: wire ``(y * W + x) * C + c``,
shape ``(H * W * C, B)``, the order the binarised input already has (pixel-major, threshold
level as channel). Both layers are stacks of 2-input gate levels whose wiring is fixed, so they
discretise into ordinary `DiscreteLayer`s.

- `LogicConv2d`: ``K`` binary-tree kernels of depth ``d``. Kernel ``o`` draws ``2^d`` leaves from
  a ``k x k`` receptive field restricted to 2 input channels; level ``l`` has ``2^(d-1-l)`` gates
  per kernel and position whose logits are shared across positions (weight sharing). Output wire
  of level ``l``: ``((p * K + o) * nodes_l + node)`` with ``p = y * W' + x`` (valid positions,
  stride 1). The last level has one node, so the output is in ``(H', W', K)`` order.
- `OrPool2d`: 2 x 2 max pooling, stride 2, as a tree of OR gates: ``max(a, b)`` relaxed, gate 7
  (OR) when discretised.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from wirelab.errors import UsageError
from wirelab.logic.discrete import DiscreteLayer
from wirelab.logic.functional import gate_ids
from wirelab.logic.kernels import gather_gate
from wirelab.logic.layers import coeffs_for, init_logits

OR_GATE = 7


def _pair_index(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Wiring of a tree level above the first: node ``m`` reads wires ``2m`` and ``2m + 1``."""
    m = torch.arange(n)
    return 2 * m, 2 * m + 1


class LogicConv2d(nn.Module):
    """``(H W C, B)`` -> ``(H' W' K, B)`` with ``H' = H - k + 1``; see the module docstring."""

    a0: torch.Tensor  # (P K 2^(d-1),) first-level wiring
    b0: torch.Tensor

    def __init__(
        self,
        in_shape: tuple[int, int, int],
        channels: int,
        kernel: int = 3,
        depth: int = 3,
        init: str = "residual",
        seed: int = 0,
        gate_param: str = "softmax",
    ) -> None:
        super().__init__()
        h, w, c = in_shape
        if kernel > min(h, w) or kernel < 1 or depth < 1 or channels < 1:
            raise UsageError(f"bad conv: kernel {kernel}, depth {depth} on a {h}x{w} image")
        gen = torch.Generator().manual_seed(seed)
        self.in_shape = (h, w, c)
        self.out_shape = (h - kernel + 1, w - kernel + 1, channels)
        ho, wo, k = self.out_shape
        leaves = 2**depth
        pair = torch.stack(
            [torch.randperm(c, generator=gen)[: min(2, c)] for _ in range(k)]
        )  # (K, 1|2)
        ch = pair.gather(1, torch.randint(0, pair.shape[1], (k, leaves), generator=gen))
        dy = torch.randint(0, kernel, (k, leaves), generator=gen)
        dx = torch.randint(0, kernel, (k, leaves), generator=gen)
        # make the two leaves of every first-level gate distinct (when the field allows it)
        if kernel * kernel * pair.shape[1] > 1:
            for o in range(k):
                for m in range(0, leaves, 2):
                    while (ch[o, m], dy[o, m], dx[o, m]) == (
                        ch[o, m + 1],
                        dy[o, m + 1],
                        dx[o, m + 1],
                    ):
                        dy[o, m + 1] = torch.randint(0, kernel, (1,), generator=gen)
                        dx[o, m + 1] = torch.randint(0, kernel, (1,), generator=gen)
                        ch[o, m + 1] = pair[o, torch.randint(0, pair.shape[1], (1,), generator=gen)]
        py, px = torch.meshgrid(torch.arange(ho), torch.arange(wo), indexing="ij")
        py, px = py.reshape(-1, 1, 1), px.reshape(-1, 1, 1)  # (P, 1, 1)
        leaf = ((py + dy[None]) * w + (px + dx[None])) * c + ch[None]  # (P, K, leaves)
        self.depth, self.kernel, self.positions = depth, kernel, ho * wo
        self.register_buffer("a0", leaf[:, :, 0::2].reshape(-1).contiguous())
        self.register_buffer("b0", leaf[:, :, 1::2].reshape(-1).contiguous())
        self.weights = nn.ParameterList(
            nn.Parameter(init_logits((k, 2 ** (depth - 1 - lvl)), init, gen, gate_param))
            for lvl in range(depth)
        )

    @property
    def in_features(self) -> int:
        return int(np.prod(self.in_shape))

    @property
    def out_features(self) -> int:
        return int(np.prod(self.out_shape))

    def level_wiring(self, lvl: int) -> tuple[torch.Tensor, torch.Tensor]:
        if lvl == 0:
            return self.a0, self.b0
        return _pair_index(self.positions * self.weights[lvl].shape[0] * self.weights[lvl].shape[1])

    def forward(self, x: torch.Tensor, mode: str = "soft") -> torch.Tensor:
        if x.shape[0] != self.in_features:
            raise UsageError(
                f"LogicConv2d expected {self.in_features} input rows, got {x.shape[0]}"
            )
        for lvl, logits in enumerate(self.weights):
            c = coeffs_for(logits, mode).reshape(-1, 4).repeat(self.positions, 1)  # (P K nodes, 4)
            a, b = self.level_wiring(lvl)
            x = gather_gate(x, a.to(x.device), b.to(x.device), c)
        return x  # (H' W' K, B)

    def discretize(self) -> list[DiscreteLayer]:
        out = []
        for lvl, logits in enumerate(self.weights):
            g = gate_ids(logits).reshape(-1).cpu().numpy().astype(np.uint8)
            a, b = self.level_wiring(lvl)
            out.append(DiscreteLayer(a.cpu().numpy(), b.cpu().numpy(), np.tile(g, self.positions)))
        return out

    def extra_repr(self) -> str:
        return f"{self.in_shape} -> {self.out_shape}, kernel={self.kernel}, depth={self.depth}"


class OrPool2d(nn.Module):
    """2 x 2 OR pooling, stride 2: ``(H W C, B)`` -> ``(H/2 W/2 C, B)`` (odd edges dropped)."""

    a0: torch.Tensor
    b0: torch.Tensor

    def __init__(self, in_shape: tuple[int, int, int]) -> None:
        super().__init__()
        h, w, c = in_shape
        if h < 2 or w < 2:
            raise UsageError(f"cannot pool a {h}x{w} image")
        self.in_shape = (h, w, c)
        self.out_shape = (h // 2, w // 2, c)
        ho, wo, _ = self.out_shape
        y, x, ch = torch.meshgrid(
            torch.arange(ho), torch.arange(wo), torch.arange(c), indexing="ij"
        )  # each (H', W', C)

        def idx(dy: int, dx: int) -> torch.Tensor:
            return ((2 * y + dy) * w + (2 * x + dx)) * c + ch

        # level 0: node 0 = OR of the top row, node 1 = OR of the bottom row
        a0 = torch.stack([idx(0, 0), idx(1, 0)], dim=-1).reshape(-1)
        b0 = torch.stack([idx(0, 1), idx(1, 1)], dim=-1).reshape(-1)
        self.register_buffer("a0", a0)
        self.register_buffer("b0", b0)

    @property
    def in_features(self) -> int:
        return int(np.prod(self.in_shape))

    @property
    def out_features(self) -> int:
        return int(np.prod(self.out_shape))

    def level_wiring(self, lvl: int) -> tuple[torch.Tensor, torch.Tensor]:
        return (self.a0, self.b0) if lvl == 0 else _pair_index(self.out_features)

    def forward(self, x: torch.Tensor, mode: str = "soft") -> torch.Tensor:
        if x.shape[0] != self.in_features:
            raise UsageError(f"OrPool2d expected {self.in_features} input rows, got {x.shape[0]}")
        for lvl in range(2):
            a, b = self.level_wiring(lvl)
            x = torch.maximum(x.index_select(0, a.to(x.device)), x.index_select(0, b.to(x.device)))
        return x  # (H/2 W/2 C, B)

    def discretize(self) -> list[DiscreteLayer]:
        out = []
        for lvl in range(2):
            a, b = self.level_wiring(lvl)
            gate = np.full(a.shape[0], OR_GATE, dtype=np.uint8)
            out.append(DiscreteLayer(a.cpu().numpy(), b.cpu().numpy(), gate))
        return out

    def extra_repr(self) -> str:
        return f"{self.in_shape} -> {self.out_shape}"
