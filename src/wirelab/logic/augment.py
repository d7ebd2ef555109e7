"""Training-time augmentation: each training image warped (turned, elastically distorted) and
shifted by a random whole number of pixels.

Shift (``augment_shift = s``): a batch ``x`` of shape ``(b, H, W)`` becomes ``y`` with
``y[i, r, c] = x[i, r - dy_i, c - dx_i]`` where that pixel exists and 0 (background) elsewhere,
``dy_i, dx_i`` drawn uniformly from ``{-s, ..., s}``. The model crops afterwards, so a shifted
digit moves within the full image and the crop sees pixels next to the centre too.

Rotation (``augment_rotate``, degrees) and elastic distortion (``augment_elastic`` = alpha
pixels, ``augment_elastic_sigma``) are one bilinear warp of `wirelab.logic.warp` (equations
there). Order: the warp first, then the shift: ``y = shift(warp(x))``. Only training batches are
augmented; validation, test and the discrete network see the images as they are. Each
augmentation draws from its own generator seeded by ``(seed, k)`` at step ``k`` (the shifts:
``step_seed(seed, k)``, as before the warps existed; the warps: `wirelab.logic.warp`'s streams),
so a resumed run draws the same ones (bit-identical resume) and turning one on leaves the
others' draws unchanged. With all three at 0 the batch itself is returned. Call::

    xb = augment_batch(x, seed=0, step=k, shift=1, rotate=10.0, elastic=34.0, sigma=4.0)

`shift_images` is the fast path of the shift (one gather); `shift_images_reference` the readable
loop it is tested against.
"""

from __future__ import annotations

import torch

from wirelab.logic.forwards import step_seed
from wirelab.logic.warp import draw_angles, draw_displacements, warp_images


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


def augment_batch(
    x: torch.Tensor,
    seed: int,
    step: int,
    *,
    shift: int = 0,
    rotate: float = 0.0,
    elastic: float = 0.0,
    sigma: float = 4.0,
) -> torch.Tensor:
    """The training batch ``x`` ``(b, H, W)`` of step ``step``: turned by up to ``rotate``
    degrees and distorted by ``elastic`` pixels (Gaussian width ``sigma``) in one warp, then
    shifted by up to ``shift`` pixels; all 0: ``x`` itself."""
    if rotate > 0 or elastic > 0:
        b, h, w = x.shape
        angles = draw_angles(b, rotate, seed, step)
        x = warp_images(x, angles, draw_displacements(b, h, w, elastic, sigma, seed, step))
    if shift > 0:
        x = shift_images(x, draw_shifts(len(x), shift, seed, step))
    return x
