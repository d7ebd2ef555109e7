"""Training-time augmentation: each training image shifted by a random whole number of pixels.

A batch ``x`` of shape ``(b, H, W)`` becomes ``y`` with
``y[i, r, c] = x[i, r - dy_i, c - dx_i]`` where that pixel exists and 0 (background) elsewhere,
``dy_i, dx_i`` drawn uniformly from ``{-s, ..., s}`` (``s`` = ``augment_shift``). The model crops
afterwards, so a shifted digit moves within the full image and the crop sees pixels next to the
centre too. Only training batches are shifted; validation, test and the discrete network see the
images as they are. The shifts of step ``k`` come from a generator seeded by ``(seed, k)``, so a
resumed run draws the same shifts (bit-identical resume).

`shift_images` is the fast path (one gather); `shift_images_reference` the readable loop it is
tested against.
"""

from __future__ import annotations

import torch

from wirelab.logic.forwards import step_seed


def draw_shifts(batch: int, max_shift: int, seed: int, step: int) -> torch.Tensor:
    """``(batch, 2)`` int64 shifts ``(dy, dx)`` in ``[-max_shift, max_shift]`` for step ``step``."""
    gen = torch.Generator().manual_seed(step_seed(seed, step))
    return torch.randint(-max_shift, max_shift + 1, (batch, 2), generator=gen)


def shift_images(x: torch.Tensor, shifts: torch.Tensor) -> torch.Tensor:
    """``x`` ``(b, H, W)`` moved by ``shifts`` ``(b, 2)`` = ``(dy, dx)`` with zero fill."""
    b, h, w = x.shape
    s = int(shifts.abs().max()) if len(shifts) else 0
    if s == 0:
        return x
    padded = torch.nn.functional.pad(x, (s, s, s, s))  # (b, H + 2s, W + 2s)
    rows = (s - shifts[:, 0])[:, None] + torch.arange(h)  # (b, H): source row in padded
    cols = (s - shifts[:, 1])[:, None] + torch.arange(w)  # (b, W)
    return padded[torch.arange(b)[:, None, None], rows[:, :, None], cols[:, None, :]]


def shift_images_reference(x: torch.Tensor, shifts: torch.Tensor) -> torch.Tensor:
    """The same, pixel by pixel: ``y[i, r, c] = x[i, r - dy, c - dx]`` when inside, else 0."""
    b, h, w = x.shape
    y = torch.zeros_like(x)
    for i in range(b):
        dy, dx = int(shifts[i, 0]), int(shifts[i, 1])
        for r in range(h):
            for c in range(w):
                if 0 <= r - dy < h and 0 <= c - dx < w:
                    y[i, r, c] = x[i, r - dy, c - dx]
    return y


def augment_batch(x: torch.Tensor, max_shift: int, seed: int, step: int) -> torch.Tensor:
    """The training batch of step ``step``, shifted (``max_shift`` 0: unchanged)."""
    if max_shift <= 0:
        return x
    return shift_images(x, draw_shifts(len(x), max_shift, seed, step))
