"""The datasets wirelab knows: where each file comes from and what its bytes must hash to.

Checksums are SHA-256. For gzip-compressed files the checksum is taken over the *decompressed*
content (``content="gunzip"``): MNIST is distributed by several mirrors that gzip the same IDX
bytes differently, and the uncompressed bytes are what the canonical MD5s of LeCun et al. describe.
The same rule lets a user drop in the raw, uncompressed IDX file instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from wirelab.errors import UsageError


@dataclass(frozen=True)
class RemoteFile:
    """One file of a dataset.

    Attributes:
        path: location relative to the data directory and the cache, e.g. ``mnist/…gz``.
        urls: HTTPS mirrors tried in order.
        sha256: expected SHA-256 (of the file, or of its decompressed content, see ``content``).
        size: expected byte count of what ``sha256`` covers.
        content: ``"file"`` hashes the file as stored; ``"gunzip"`` hashes its decompressed bytes.
    """

    path: str
    urls: tuple[str, ...]
    sha256: str
    size: int
    content: Literal["file", "gunzip"] = "file"

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def raw_path(self) -> str | None:
        """The uncompressed alternative accepted for gzip files (``foo.gz`` -> ``foo``)."""
        if self.content == "gunzip" and self.path.endswith(".gz"):
            return self.path[: -len(".gz")]
        return None


@dataclass(frozen=True)
class Dataset:
    name: str
    description: str
    citation: str
    files: tuple[RemoteFile, ...] = field(default_factory=tuple)


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
    name="mnist",
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
)

LARVA = Dataset(
    name="larva",
    description=(
        "Larval Drosophila whole-brain connectome (Winding et al. 2023), supplementary data S1: "
        "synapse-count matrices by edge type and pair/cell-type annotations."
    ),
    citation="Winding M. et al. The connectome of an insect brain. Science 379, eadd9330 (2023).",
    files=(
        RemoteFile(
            path="connectome/winding2023-Supplementary-Data-S1.zip",
            urls=(
                "https://github.com/brain-networks/larval-drosophila-connectome/raw/main/"
                "Supplementary-Data-S1.zip",
                "https://raw.githubusercontent.com/brain-networks/larval-drosophila-connectome/"
                "main/data/Supplementary-Data-S1.zip",
            ),
            sha256="8c1f43809ed5d527ba61b154e377cc21da26383a75eda8aab85ce05607a72a4c",
            size=1107380,
        ),
    ),
)

DATASETS: dict[str, Dataset] = {d.name: d for d in (MNIST, LARVA)}


def get_dataset(name: str) -> Dataset:
    """Look a dataset up by name; unknown names raise a `UsageError` listing the known ones."""
    try:
        return DATASETS[name]
    except KeyError:
        known = ", ".join(sorted(DATASETS))
        raise UsageError(f"unknown dataset {name!r}; known datasets: {known}") from None
