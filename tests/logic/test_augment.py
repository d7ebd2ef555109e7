"""`wirelab.logic.augment` and `wirelab.logic.warp`: the fast paths equal the pixel loops, the
draws repeat per (seed, step), the options reach training."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.clirun import one_line_error, wirelab
from wirelab.errors import UsageError
from wirelab.logic.augment import (
    augment_batch,
    draw_shifts,
    shift_images,
    shift_images_reference,
)
from wirelab.logic.config import TrainConfig
from wirelab.logic.warp import (
    draw_angles,
    draw_displacements,
    smooth_field,
    warp_images,
    warp_images_reference,
)


@settings(max_examples=40, deadline=None)
@given(
    b=st.integers(1, 4),
    h=st.integers(1, 7),
    w=st.integers(1, 7),
    s=st.integers(0, 4),
    seed=st.integers(0, 10**6),
)
def test_fast_path_equals_the_pixel_loop(b: int, h: int, w: int, s: int, seed: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand((b, h, w), generator=gen)
    shifts = torch.randint(-s, s + 1, (b, 2), generator=gen)
    assert torch.equal(shift_images(x, shifts), shift_images_reference(x, shifts))


def test_a_shift_moves_the_image_and_fills_with_zero() -> None:
    x = torch.arange(1.0, 10.0).reshape(1, 3, 3)
    y = shift_images(x, torch.tensor([[1, -1]]))  # one row down, one column left
    assert y.tolist() == [[[0.0, 0.0, 0.0], [2.0, 3.0, 0.0], [5.0, 6.0, 0.0]]]


def test_shifts_depend_on_seed_and_step_only() -> None:
    a = draw_shifts(100, 2, seed=3, step=17)
    assert torch.equal(a, draw_shifts(100, 2, seed=3, step=17))
    assert not torch.equal(a, draw_shifts(100, 2, seed=3, step=18))
    assert int(a.abs().max()) <= 2 and int(a.abs().max()) == 2


def test_no_shift_leaves_the_batch_unchanged() -> None:
    x = torch.rand(5, 4, 4)
    assert augment_batch(x, seed=0, step=0) is x
    assert augment_batch(x, 0, 0, shift=0, rotate=0.0, elastic=0.0, sigma=1.0) is x


def test_training_reads_the_shifted_batches(tmp_path) -> None:
    pytest.importorskip("sklearn")
    from wirelab.logic.training import run

    base = {"dataset": "digits", "steps": 10, "eval_every": 10, "batch_size": 16, "threads": 1}
    base["model"] = {"dense": [60, 60], "tau": 3.0}
    plain = run(TrainConfig(**base), tmp_path / "plain", quiet=True)
    shifted = run(TrainConfig(**base, augment_shift=1), tmp_path / "shifted", quiet=True)
    assert plain["history"][0]["loss"] != shifted["history"][0]["loss"]
    assert (
        shifted["history"][0]["loss"]
        == run(TrainConfig(**base, augment_shift=1), tmp_path / "again", quiet=True)["history"][0][
            "loss"
        ]
    )


@settings(max_examples=30, deadline=None)
@given(
    b=st.integers(1, 3),
    h=st.integers(1, 7),
    w=st.integers(1, 7),
    rotate=st.floats(0.0, 45.0),
    alpha=st.floats(0.0, 40.0),
    sigma=st.floats(0.3, 6.0),
    seed=st.integers(0, 10**6),
)
def test_the_warp_equals_the_pixel_loop(b, h, w, rotate, alpha, sigma, seed) -> None:
    x = torch.rand((b, h, w), generator=torch.Generator().manual_seed(seed))
    angles = draw_angles(b, rotate, seed, step=5)
    disp = draw_displacements(b, h, w, alpha, sigma, seed, step=5)
    fast, ref = warp_images(x, angles, disp), warp_images_reference(x, angles, disp)
    torch.testing.assert_close(fast, ref, atol=1e-6, rtol=0.0)


@settings(max_examples=30, deadline=None)
@given(
    b=st.integers(1, 3),
    h=st.integers(1, 9),
    w=st.integers(1, 9),
    shift=st.integers(0, 3),
    rotate=st.floats(0.0, 45.0),
    alpha=st.floats(0.0, 40.0),
    lo=st.floats(-2.0, 2.0),
    seed=st.integers(0, 10**6),
)
def test_augmented_images_keep_shape_dtype_and_range(b, h, w, shift, rotate, alpha, lo, seed):
    x = lo + torch.rand((b, h, w), generator=torch.Generator().manual_seed(seed))
    y = augment_batch(x, seed, 3, shift=shift, rotate=rotate, elastic=alpha, sigma=2.0)
    assert y.shape == x.shape and y.dtype == x.dtype
    # bilinear weights sum to one and the fill is 0: a convex mix of the pixels and 0
    assert float(y.min()) >= min(float(x.min()), 0.0) - 1e-6
    assert float(y.max()) <= max(float(x.max()), 0.0) + 1e-6
    zeros = torch.zeros(b)
    assert torch.equal(warp_images_reference(x, zeros, torch.zeros(b, 2, h, w)), x)
    torch.testing.assert_close(warp_images(x, zeros, torch.zeros(b, 2, h, w)), x, atol=1e-6, rtol=0)


def test_a_quarter_turn_and_a_whole_pixel_field_move_pixels_exactly() -> None:
    x = torch.arange(1.0, 10.0).reshape(1, 3, 3)
    turned = warp_images_reference(x, torch.tensor([90.0]), torch.zeros(1, 2, 3, 3))
    # +90 degrees: output pixel (r, q) reads (cy - (q - cx), cx + (r - cy)), clockwise on screen
    torch.testing.assert_close(
        turned, torch.tensor([[[7.0, 4.0, 1.0], [8.0, 5.0, 2.0], [9.0, 6.0, 3.0]]])
    )
    torch.testing.assert_close(
        warp_images(x, torch.tensor([90.0]), torch.zeros(1, 2, 3, 3)), turned
    )
    down = torch.zeros(1, 2, 3, 3)
    down[:, 0] = -1.0  # every pixel reads the row above: the image moves one row down
    assert warp_images_reference(x, torch.zeros(1), down).tolist() == [
        [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    ]
    half = torch.zeros(1, 2, 3, 3)
    half[:, 1] = 0.5  # halfway to the next column: the mean of the two, 0 past the edge
    torch.testing.assert_close(
        warp_images(x, torch.zeros(1), half),
        torch.tensor([[[1.5, 2.5, 1.5], [4.5, 5.5, 3.0], [7.5, 8.5, 4.5]]]),
    )


@pytest.mark.parametrize("sigma", [0.5, 1.5, 4.0])
def test_the_field_smoothing_is_scipys_gaussian_filter(sigma: float) -> None:
    ndimage = pytest.importorskip("scipy.ndimage")
    u = 2.0 * torch.rand(2, 2, 9, 30, generator=torch.Generator().manual_seed(1)) - 1.0
    want = ndimage.gaussian_filter(
        u.numpy().astype(np.float64), sigma, mode="constant", axes=(2, 3)
    )
    np.testing.assert_allclose(smooth_field(u, sigma).numpy(), want, atol=1e-6)


def test_warp_draws_repeat_per_seed_and_step_in_their_own_streams() -> None:
    a = draw_angles(50, 20.0, seed=3, step=17)
    assert torch.equal(a, draw_angles(50, 20.0, seed=3, step=17))
    assert not torch.equal(a, draw_angles(50, 20.0, seed=3, step=18))
    assert not torch.equal(a, draw_angles(50, 20.0, seed=4, step=17))
    assert float(a.abs().max()) <= 20.0 and float(a.abs().max()) > 15.0
    d = draw_displacements(4, 8, 8, 30.0, 2.0, seed=3, step=17)
    assert torch.equal(d, draw_displacements(4, 8, 8, 30.0, 2.0, seed=3, step=17))
    assert not torch.equal(d, draw_displacements(4, 8, 8, 30.0, 2.0, seed=3, step=18))
    assert float(d.abs().max()) > 0.5
    # composed: warp first, then shift; each augmentation's draws as when it is alone
    x = torch.rand(6, 10, 10)
    both = augment_batch(x, 3, 17, shift=2, rotate=20.0, elastic=30.0, sigma=2.0)
    warped = warp_images(
        x, draw_angles(6, 20.0, 3, 17), draw_displacements(6, 10, 10, 30.0, 2.0, 3, 17)
    )
    assert torch.equal(both, shift_images(warped, draw_shifts(6, 2, 3, 17)))
    assert torch.equal(augment_batch(x, 3, 17, shift=2), shift_images(x, draw_shifts(6, 2, 3, 17)))
    assert augment_batch(x, 3, 17, sigma=2.0) is x


@pytest.mark.parametrize(
    "field,value",
    [
        ("augment_rotate", -1.0),
        ("augment_rotate", 45.5),
        ("augment_elastic", 40.5),
        ("augment_elastic", float("nan")),
        ("augment_elastic_sigma", 0.0),
        ("augment_elastic_sigma", "4"),
    ],
)
def test_bad_warp_settings_are_one_line_usage_errors(field: str, value: object) -> None:
    with pytest.raises(UsageError, match=field) as err:
        TrainConfig(**{field: value}).validate()
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "opt,value",
    [("--augment-rotate", "46"), ("--augment-elastic", "-1"), ("--augment-elastic-sigma", "0")],
)
def test_bad_warp_options_are_usage_errors(tmp_path, opt: str, value: str) -> None:
    r = wirelab("logic", "train", "--dataset", "digits", opt, value, "--out", tmp_path / "r")
    assert r.returncode == 2 and one_line_error(r)
    assert not (tmp_path / "r").exists()


def test_the_warp_options_reach_the_run(tmp_path) -> None:
    pytest.importorskip("sklearn")
    import json

    opts = ["--augment-rotate", "12.5", "--augment-elastic", "20", "--augment-elastic-sigma", "3"]
    args = ["--steps", "2", "--eval-every", "2", "--dense", "40", "--threads", "1", *opts]
    r = wirelab("logic", "train", "--dataset", "digits", *args, "--out", tmp_path / "r")
    assert r.returncode == 0, r.stderr
    cfg = json.loads((tmp_path / "r" / "config.json").read_text())["config"]
    assert (cfg["augment_rotate"], cfg["augment_elastic"], cfg["augment_elastic_sigma"]) == (
        12.5,
        20.0,
        3.0,
    )
