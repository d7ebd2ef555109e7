"""The logic networks' training sets: images in [0, 1] (float32), class subsets, a validation split.

`TRAINING_SETS` is the one list of them (a `wirelab.registry.Registry` of `TrainingSet`; with
``mnist-q75``, MNIST encoded one bit a pixel by each image's own 0.75-quantile,
`wirelab.logic.quantile`): its names are ``wirelab logic train --dataset``'s choices, and each
entry knows its class count and image shape without loading anything, and how to load its train
and test images. (The files behind them, e.g. MNIST's, are the checksummed `wirelab.data.DATASETS`.)

The validation split is drawn from the training set with the run's seed, so early stopping and
model selection never look at the test set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wirelab.errors import MissingDataError, UsageError
from wirelab.logic.quantile import QUANTILE, quantile_bits
from wirelab.registry import Registry

Arrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # x_train, y_train, x_test, y_test


@dataclass(frozen=True)
class TrainingSet:
    """A labelled image set: ``classes`` labels ``0..classes-1``, images ``shape`` ``(H, W)``;
    ``load()`` returns ``x_train, y_train, x_test, y_test`` with uint8 pixels ``(N, H, W)``."""

    classes: int
    shape: tuple[int, int]
    load: Callable[[], Arrays]


def _mnist() -> Arrays:
    from wirelab.data import load_mnist

    xtr, ytr = load_mnist("train")
    xte, yte = load_mnist("test")
    return xtr, ytr, xte, yte


def _digits() -> Arrays:
    """scikit-learn's 1,797 8 x 8 digits (values 0..16, scaled to 0..255), a fixed 80/20 split."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise MissingDataError(
            "the digits dataset needs scikit-learn (pip install scikit-learn)"
        ) from None
    d = load_digits()
    img = (d.images * (255.0 / 16.0)).round().astype(np.uint8)
    perm = np.random.default_rng(12345).permutation(len(img))  # fixed train/test split
    cut = int(0.8 * len(img))
    tr, te = perm[:cut], perm[cut:]
    return img[tr], d.target[tr], img[te], d.target[te]


def quantile_set(base: TrainingSet, q: float = QUANTILE) -> TrainingSet:
    """``base`` with every image (train and test) encoded one bit a pixel by its own
    ``q``-quantile (`wirelab.logic.quantile.quantile_bits`)."""
    load = base.load

    def _load() -> Arrays:
        xtr, ytr, xte, yte = load()
        return quantile_bits(xtr, q), ytr, quantile_bits(xte, q), yte

    return TrainingSet(base.classes, base.shape, _load)


TRAINING_SETS = Registry[TrainingSet]("logic training set")
TRAINING_SETS.add(
    "mnist", TrainingSet(10, (28, 28), _mnist), "MNIST, 60,000 + 10,000 28 x 28 digits"
)
TRAINING_SETS.add("digits", TrainingSet(10, (8, 8), _digits), "scikit-learn's 8 x 8 digits")
TRAINING_SETS.add(
    "mnist-q75",
    quantile_set(TRAINING_SETS.get("mnist")),
    "MNIST, one bit a pixel: 1 above the image's own 0.75-quantile (`wirelab.logic.quantile`)",
)
"""The logic networks' training sets by name (``--dataset``): `TrainingSet` entries."""


@dataclass(frozen=True)
class Split:
    x: np.ndarray  # (N, H, W) float32 in [0, 1]
    y: np.ndarray  # (N,) int64 in [0, classes)


@dataclass(frozen=True)
class TaskData:
    train: Split
    val: Split
    test: Split
    classes: tuple[int, ...]  # original labels, in the order of the class indices

    @property
    def input_shape(self) -> tuple[int, int]:
        return (int(self.train.x.shape[1]), int(self.train.x.shape[2]))


def parse_classes(
    text: str | list[int] | tuple[int, ...], dataset: str = "mnist"
) -> tuple[int, ...]:
    """``"all"`` or a comma list such as ``"0,1"`` -> a sorted tuple of distinct labels."""
    n = TRAINING_SETS.get(dataset).classes
    if isinstance(text, str):
        if text.strip() == "all":
            return tuple(range(n))
        try:
            labels = [int(t) for t in text.split(",") if t.strip()]
        except ValueError:
            raise UsageError(f"--classes must be 'all' or digits like 0,1; got {text!r}") from None
    else:
        labels = [int(t) for t in text]
    bad = [c for c in labels if not 0 <= c < n]
    if bad:
        raise UsageError(f"class {bad[0]} is not in {dataset} (classes 0-{n - 1})")
    if len(set(labels)) < 2:
        raise UsageError("--classes needs at least two distinct classes")
    return tuple(sorted(set(labels)))


def dataset_shape(dataset: str) -> tuple[int, int]:
    """The image shape ``(H, W)`` of a dataset, known without loading it."""
    return TRAINING_SETS.get(dataset).shape


def _subset(x: np.ndarray, y: np.ndarray, classes: tuple[int, ...]) -> Split:
    keep = np.isin(y, classes)
    lut = np.full(256, -1, dtype=np.int64)
    lut[list(classes)] = np.arange(len(classes))
    return Split((x[keep].astype(np.float32) / np.float32(255.0)), lut[y[keep].astype(np.int64)])


def load_task(
    dataset: str,
    classes: tuple[int, ...],
    *,
    val_fraction: float = 0.1,
    seed: int = 0,
    max_train: int | None = None,
) -> TaskData:
    """Images in [0, 1] as float32 (pixel / 255), labels re-indexed to ``0..len(classes)-1``."""
    if not 0.0 < val_fraction < 1.0:
        raise UsageError("--val-fraction must lie strictly between 0 and 1")
    xtr, ytr, xte, yte = TRAINING_SETS.get(dataset).load()
    train = _subset(xtr, ytr, classes)
    test = _subset(xte, yte, classes)
    perm = np.random.default_rng(seed).permutation(len(train.y))
    if max_train is not None:
        perm = perm[: int(max_train)]
    n_val = max(1, int(round(val_fraction * len(perm))))
    if len(perm) - n_val < 1:
        raise UsageError(
            f"{len(perm)} training images leave none after a validation split of {n_val}; "
            "raise --max-train or lower --val-fraction"
        )
    val_idx, tr_idx = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    return TaskData(
        Split(train.x[tr_idx], train.y[tr_idx]),
        Split(train.x[val_idx], train.y[val_idx]),
        test,
        classes,
    )
