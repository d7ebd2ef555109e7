"""The dataset entry type: a `Dataset` is files, each a `RemoteFile` with the SHA-256 its bytes
must hash to, plus how to describe it.

Checksums are SHA-256. For gzip-compressed files the checksum is taken over the *decompressed*
content (``content="gunzip"``): MNIST is distributed by several mirrors that gzip the same IDX
bytes differently, and the uncompressed bytes are what the canonical MD5s of LeCun et al. describe.
The same rule lets a user drop in the raw, uncompressed IDX file instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal


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
    """A registered dataset (`wirelab.data.datasets.DATASETS` entry).

    Attributes:
        description: one paragraph for ``wirelab data list``.
        citation: the publication or source.
        files: the checksummed files ``wirelab data fetch / verify`` handle.
        info: counts read from the real files (``wirelab data info NAME`` and the data summary
            experiment record them); ``None``: ``info`` lists the verified files instead.
    """

    description: str
    citation: str
    files: tuple[RemoteFile, ...] = field(default_factory=tuple)
    info: Callable[[], dict[str, object]] | None = None

    def file(self, name: str) -> RemoteFile:
        """The file whose name (the last part of its path) is ``name``."""
        return next(f for f in self.files if f.name == name)
