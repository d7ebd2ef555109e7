"""`wirelab.logic.augment`: the gather equals the pixel loop; shifts repeat per (seed, step)."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.logic.augment import (
    augment_batch,
    draw_shifts,
    shift_images,
    shift_images_reference,
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
    assert augment_batch(x, 0, seed=0, step=0) is x


def test_training_reads_the_shifted_batches(tmp_path) -> None:
    import pytest

    pytest.importorskip("sklearn")
    from wirelab.logic.config import TrainConfig
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
