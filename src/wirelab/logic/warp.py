"""Training-time warps: a random rotation and an elastic distortion, sampled bilinearly in one pass.

Pixel ``(r, q)`` (row, column) of an image ``x`` of ``H x W`` pixels sits at that point, the
centre at ``(cy, cx) = ((H - 1) / 2, (W - 1) / 2)``. The warped image ``y`` reads ``x`` at

    s_r(r, q) = cy + cos(t) (r - cy) - sin(t) (q - cx) + d_r(r, q)
    s_q(r, q) = cx + sin(t) (r - cy) + cos(t) (q - cx) + d_q(r, q)

    y[r, q] = sum over a, b in {0, 1} of (1 - |s_r - r0 - a|) (1 - |s_q - q0 - b|) x[r0 + a, q0 + b]

with ``r0 = floor(s_r)``, ``q0 = floor(s_q)`` and ``x = 0`` outside the image (bilinear
interpolation, zero fill): the image turned by ``t`` about its centre (the rotation; clockwise
as displayed, rows downward, for ``t > 0``) and moved pixel by pixel by ``d`` (the elastic
distortion), both in one sampling.

- Rotation (``augment_rotate = R``): ``t`` uniform in ``[-R, R]`` degrees, one per image.
- Elastic distortion (Simard, Steinkraus & Platt 2003, "Best practices for convolutional neural
  networks applied to visual document analysis", ICDAR): ``d = alpha * (G_sigma * u)`` with
  ``u`` uniform in ``[-1, 1]`` per pixel and component (float32) and ``G_sigma`` the normalised
  Gaussian ``g[k] ~ exp(-k^2 / (2 sigma^2))``, ``|k| <= floor(4 sigma + 0.5)``, applied along
  columns and then rows with zero padding (``scipy.ndimage.gaussian_filter(u, sigma,
  mode="constant")``, tested equal), as two matrix products with banded ``H x H`` and ``W x W``
  matrices built once per ``(size, sigma)``. ``alpha = augment_elastic`` pixels.

Random streams: the angles of step ``k`` come from a generator seeded ``step_seed(seed, k) +
ROTATE_STREAM``, the fields from ``step_seed(seed, k) + ELASTIC_STREAM``; the shifts of
`wirelab.logic.augment` use ``step_seed(seed, k)`` itself. ``step_seed`` stays below 2**53 for
seeds below 2**32 and steps below 2**31, so the three streams never share a seed: turning one
augmentation on leaves the others' draws as they were, and a resumed run draws the same ones.

`warp_images` is the fast path: the source points of the whole batch, ``(b, H, W, 2)`` in
``x``'s dtype, and one ``torch.nn.functional.grid_sample`` (bilinear, zero padding) with
``align_corners=False`` and the normalised coordinate ``g = (2 s + 1) / W - 1`` (rows: ``/ H``),
which grid_sample maps back to pixel ``((g + 1) W - 1) / 2 = s`` for every size
(``align_corners=True`` divides by ``W - 1``: no image one pixel wide). `warp_images_reference`
is the per-image, per-pixel loop (float64) it is tested against. Call::

    x = torch.rand(100, 28, 28)  # (b, H, W), floating point
    t = draw_angles(100, 15.0, seed=0, step=3)  # (b,) degrees
    d = draw_displacements(100, 28, 28, alpha=34.0, sigma=4.0, seed=0, step=3)  # (b, 2, H, W)
    y = warp_images(x, t, d)  # (b, H, W)
"""

from __future__ import annotations

import math
from functools import lru_cache

import torch

from wirelab.errors import UsageError
from wirelab.logic.forwards import step_seed

ROTATE_STREAM = 2**60  # added to step_seed(seed, step): the rotation angles' generator
ELASTIC_STREAM = 2**61  # the elastic displacement fields' generator


def _generator(seed: int, step: int, stream: int) -> torch.Generator:
    return torch.Generator().manual_seed(step_seed(seed, step) + stream)


def draw_angles(batch: int, max_degrees: float, seed: int, step: int) -> torch.Tensor:
    """``(batch,)`` float64 angles uniform in ``[-max_degrees, max_degrees]`` (0: all zero)."""
    if max_degrees <= 0:
        return torch.zeros(batch, dtype=torch.float64)
    u = torch.rand(batch, generator=_generator(seed, step, ROTATE_STREAM), dtype=torch.float64)
    return (2.0 * u - 1.0) * max_degrees


@lru_cache(maxsize=16)
def gaussian_matrix(n: int, sigma: float) -> torch.Tensor:
    """``(n, n)`` float32 ``G[i, j] = g[j - i]``: the truncated, normalised Gaussian of width
    ``sigma`` applied with zero padding (``G @ v`` smooths a length-``n`` vector ``v``)."""
    radius = int(4.0 * sigma + 0.5)
    taps = torch.arange(-radius, radius + 1, dtype=torch.float64)
    norm = torch.exp(-0.5 * (taps / sigma) ** 2).sum()
    k = torch.arange(n, dtype=torch.float64)
    diff = k[None, :] - k[:, None]
    g = torch.exp(-0.5 * (diff / sigma) ** 2) * (diff.abs() <= radius)
    return (g / norm).to(torch.float32)


def smooth_field(u: torch.Tensor, sigma: float) -> torch.Tensor:
    """``u`` ``(..., H, W)`` convolved with the 2-D Gaussian ``G_sigma`` (zero padding)."""
    gh, gw = gaussian_matrix(u.shape[-2], float(sigma)), gaussian_matrix(u.shape[-1], float(sigma))
    return gh @ (u @ gw.T)


def draw_displacements(
    batch: int, h: int, w: int, alpha: float, sigma: float, seed: int, step: int
) -> torch.Tensor:
    """``(batch, 2, h, w)`` float32 fields ``(d_r, d_q)`` in pixels: ``alpha * (G_sigma * u)``
    with ``u`` uniform in ``[-1, 1]`` (``alpha`` 0: all zero, nothing drawn)."""
    if alpha <= 0:
        return torch.zeros(batch, 2, h, w)
    gen = _generator(seed, step, ELASTIC_STREAM)
    u = 2.0 * torch.rand((batch, 2, h, w), generator=gen) - 1.0
    return alpha * smooth_field(u, sigma)


def _check(x: torch.Tensor, angles: torch.Tensor, disp: torch.Tensor) -> None:
    if x.ndim != 3 or not torch.is_floating_point(x):
        raise UsageError(f"warp needs floating-point images (b, H, W), not {tuple(x.shape)}")
    b, h, w = x.shape
    if angles.shape != (b,) or disp.shape != (b, 2, h, w):
        raise UsageError(f"warp of {(b, h, w)}: angles (b,) and displacements (b, 2, H, W)")


def warp_images(x: torch.Tensor, angles: torch.Tensor, disp: torch.Tensor) -> torch.Tensor:
    """``x`` ``(b, H, W)`` turned by ``angles`` ``(b,)`` degrees and moved by ``disp``
    ``(b, 2, H, W)`` pixels: one bilinear ``grid_sample``, zero fill.

    The grid is ``(g_q, g_r) = (2 / W (s_q - cx), 2 / H (s_r - cy))`` (the normalised point of
    ``s`` for ``align_corners=False``, as ``2 cx + 1 = W``): the centred pixel ``(r', q')`` times
    a ``2 x 2`` matrix per image plus the scaled displacement, in ``x``'s dtype."""
    _check(x, angles, disp)
    b, h, w = x.shape
    t = torch.deg2rad(angles.to(torch.float64))
    cos, sin = torch.cos(t), torch.sin(t)
    rows = torch.stack((sin * (2 / w), cos * (2 / h)), -1)  # coefficients of r' in (g_q, g_r)
    cols = torch.stack((cos * (2 / w), -sin * (2 / h)), -1)  # of q'
    m = torch.stack((rows, cols), 1).to(x.dtype)  # (b, 2, 2)
    r = torch.arange(h, dtype=x.dtype) - (h - 1) / 2.0
    q = torch.arange(w, dtype=x.dtype) - (w - 1) / 2.0
    centred = torch.stack(torch.meshgrid(r, q, indexing="ij"), -1).reshape(h * w, 2)
    grid = (centred @ m).view(b, h, w, 2)  # grid_sample's (x, y) = (column, row)
    scale = torch.tensor([2 / w, 2 / h], dtype=x.dtype)
    grid = grid + disp.to(x.dtype).flip(1).permute(0, 2, 3, 1) * scale
    y = torch.nn.functional.grid_sample(
        x[:, None], grid, mode="bilinear", padding_mode="zeros", align_corners=False
    )
    return y[:, 0]


def warp_images_reference(
    x: torch.Tensor, angles: torch.Tensor, disp: torch.Tensor
) -> torch.Tensor:
    """The same, image by image and pixel by pixel, from the equations above (float64)."""
    _check(x, angles, disp)
    b, h, w = x.shape
    cy, cx = (h - 1) / 2.0, (w - 1) / 2.0
    y = torch.zeros_like(x)
    for i in range(b):
        t = math.radians(float(angles[i]))
        img = x[i].tolist()
        for r in range(h):
            for q in range(w):
                sr = cy + math.cos(t) * (r - cy) - math.sin(t) * (q - cx) + float(disp[i, 0, r, q])
                sq = cx + math.sin(t) * (r - cy) + math.cos(t) * (q - cx) + float(disp[i, 1, r, q])
                r0, q0 = math.floor(sr), math.floor(sq)
                total = 0.0
                for rr in (r0, r0 + 1):
                    for qq in (q0, q0 + 1):
                        if 0 <= rr < h and 0 <= qq < w:
                            total += (1 - abs(sr - rr)) * (1 - abs(sq - qq)) * img[rr][qq]
                y[i, r, q] = total
    return y
