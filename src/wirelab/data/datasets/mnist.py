"""The MNIST dataset: its four standard IDX files (gzip or raw) and how to read them.

IDX layout (LeCun et al.): a 4-byte big-endian magic ``0x0000TTDD`` (TT = 0x08 for unsigned bytes,
DD = number of dimensions), DD big-endian uint32 sizes, then the data in C order.
Images: magic 0x00000803, shape (N, 28, 28); labels: magic 0x00000801, shape (N,).

`MNIST` is the ``mnist`` entry of `wirelab.data.datasets.DATASETS` (its files and `mnist_info`);
`load_mnist` returns a split as arrays.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path
from typing import Literal

import numpy as np

from wirelab.data.datasets.base import Dataset, RemoteFile
from wirelab.data.download import fetch
from wirelab.errors import CorruptDataError, UsageError

Split = Literal["train", "test"]
_FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}
_EXPECTED = {"train": 60000, "test": 10000}


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
        if head == b"\x1f\x8b":
            with gzip.open(path, "rb") as gz:
                return gz.read()
        return path.read_bytes()
    except (EOFError, OSError, zlib.error) as exc:
        raise CorruptDataError(f"{path}: cannot read ({exc})") from exc


def parse_idx(data: bytes, name: str = "<bytes>") -> np.ndarray:
    """Parse IDX bytes of unsigned bytes into an array, validating magic number and length."""
    if len(data) < 4:
        raise CorruptDataError(f"{name}: {len(data)} bytes is too short for an IDX header")
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08 or ndim not in (1, 3):
        raise CorruptDataError(
            f"{name}: bad IDX magic number 0x{data[:4].hex()} (expected 00000801 or 00000803)"
        )
    header = 4 + 4 * ndim
    if len(data) < header:
        raise CorruptDataError(f"{name}: truncated IDX header")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    expected = header + int(np.prod(shape))
    if len(data) != expected:
        raise CorruptDataError(
            f"{name}: IDX header promises shape {shape} ({expected} bytes) but the file has "
            f"{len(data)} bytes"
        )
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape)


def read_idx(path: str | Path) -> np.ndarray:
    """Read an IDX file (gzip-compressed or raw) of unsigned bytes."""
    path = Path(path)
    return parse_idx(_read_bytes(path), str(path))


def load_mnist(
    split: Split = "train", *, allow_download: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Images ``(N, 28, 28)`` uint8 and labels ``(N,)`` uint8 of the ``train`` or ``test`` split."""
    if split not in _FILES:
        raise UsageError(f"unknown MNIST split {split!r}; use 'train' or 'test'")
    img_name, lab_name = _FILES[split]
    images = read_idx(fetch(MNIST.file(img_name), allow_download=allow_download))
    labels = read_idx(fetch(MNIST.file(lab_name), allow_download=allow_download))
    if images.ndim != 3 or images.shape[1:] != (28, 28):
        raise CorruptDataError(
            f"MNIST {split} images have shape {images.shape}, expected (N, 28, 28)"
        )
    if labels.ndim != 1 or labels.shape[0] != images.shape[0]:
        raise CorruptDataError(
            f"MNIST {split}: {labels.shape[0]} labels for {images.shape[0]} images"
        )
    if labels.max(initial=0) > 9:
        raise CorruptDataError(f"MNIST {split}: label {int(labels.max())} is not a digit")
    if images.shape[0] != _EXPECTED[split]:
        raise CorruptDataError(
            f"MNIST {split} has {images.shape[0]} images, expected {_EXPECTED[split]}"
        )
    return images, labels


def mnist_info() -> dict[str, object]:
    """Counts read from the real files: ``train``, ``test``, ``shape``, ``classes``."""
    train_x, train_y = load_mnist("train")
    test_x, test_y = load_mnist("test")
    return {
        "name": "mnist",
        "train": int(train_x.shape[0]),
        "test": int(test_x.shape[0]),
        "shape": [int(s) for s in train_x.shape[1:]],
        "classes": int(len(np.unique(np.concatenate([train_y, test_y])))),
        "dtype": str(train_x.dtype),
        "train_class_counts": np.bincount(train_y, minlength=10).tolist(),
    }


_MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://yann.lecun.com/exdb/mnist/",
)


def _mnist(name: str, sha256: str, size: int) -> RemoteFile:
    return RemoteFile(
        path=f"mnist/{name}",
        urls=tuple(m + name for m in _MNIST_MIRRORS),
        sha256=sha256,
        size=size,
        content="gunzip",
    )


MNIST = Dataset(
    description="MNIST handwritten digits: 60,000 training and 10,000 test images, 28x28, uint8.",
    citation="LeCun, Cortes, Burges. The MNIST database of handwritten digits (1998).",
    files=(
        _mnist(
            "train-images-idx3-ubyte.gz",
            "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
            47040016,
        ),
        _mnist(
            "train-labels-idx1-ubyte.gz",
            "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
            60008,
        ),
        _mnist(
            "t10k-images-idx3-ubyte.gz",
            "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
            7840016,
        ),
        _mnist(
            "t10k-labels-idx1-ubyte.gz",
            "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
            10008,
        ),
    ),
    info=mnist_info,
)
