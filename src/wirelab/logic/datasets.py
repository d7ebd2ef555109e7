"""Datasets for logic networks: images in [0, 1] (float32), class subsets, a validation split.

The validation split is drawn from the training set with the run's seed, so early stopping and
model selection never look at the test set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wirelab.errors import MissingDataError, UsageError

DATASETS = {"mnist": 10, "digits": 10}  # name -> number of classes
SHAPES = {"mnist": (28, 28), "digits": (8, 8)}  # name -> image shape


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
    n = DATASETS.get(dataset)
    if n is None:
        raise UsageError(f"unknown dataset {dataset!r}; use one of {', '.join(DATASETS)}")
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
    if dataset not in SHAPES:
        raise UsageError(f"unknown dataset {dataset!r}; use one of {', '.join(DATASETS)}")
    return SHAPES[dataset]


def _load(dataset: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    if dataset == "mnist":
        from wirelab.data import load_mnist

        xtr, ytr = load_mnist("train")
        xte, yte = load_mnist("test")
        return xtr, ytr, xte, yte
    if dataset == "digits":  # 1,797 8x8 images shipped inside scikit-learn, values 0..16
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
    raise UsageError(f"unknown dataset {dataset!r}; use one of {', '.join(DATASETS)}")


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
    xtr, ytr, xte, yte = _load(dataset)
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
