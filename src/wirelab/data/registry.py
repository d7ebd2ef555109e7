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

_PICORV32_COMMIT = "87c89acc18994c8cf9a2311e871818e87d304568"
# SHA-256, bytes and path of each file of YosysHQ/picorv32 at that commit that wirelab reads.
_PICORV32_FILES = """
041ebc727233e5bf096dd41260cbb81014d3d29ca007a15f3b1807d4e9ff288e   777 COPYING
0836050971b3c6cdd28ac3b1e5719a67fb645161912bef1e472e63995ceb0622 94657 picorv32.v
568c90c1c173c7fc2571a6b3269e35dc581e546b2fcb311afe817865b885361c  4667 picosoc/Makefile
613c90d102981f1b9b5b28793b3f27e67884c25cf28b5ccb94d316bc18e5a58d  6242 picosoc/README.md
d4309cfcccd605c3a3fe5e1c4b1687e32bb8eb349aec8b0879685d564ce0d7a3 16600 picosoc/firmware.c
980fe3f8f66c8ad644d018320216b420dc237d3b955749b3f01f461016e26e7b  2290 picosoc/ice40up5k_spram.v
e9bba50889eea6cf20fbc3c3905bf836214cc62904233abb90b75cce25d05da3   406 picosoc/icebreaker.pcf
f672d5e2a16b5b13c45ab57eff61b1bb6ad81cdb2d5ae7a37a08e51de8c9b451  3862 picosoc/icebreaker.v
5e7db346599ad9aee29edb1f1c8a9265cb862610e4cab67bad3232d0aa596ee6  2878 picosoc/icebreaker_tb.v
86a1693c4844a0d11353e7524f38303d86be7aaf6ee82be2769c87e21b7b7be8  6891 picosoc/picosoc.v
9e4a843c30cd0f9ffd592f5598cb22fae437a4ebfec808a66adcd2b1cc93ea00  2615 picosoc/sections.lds
6b970be4255ef5f951f80a3b0cb27f73844df94349f4e4460bc4dbc4bb49ca1b  3563 picosoc/simpleuart.v
5e30ee6eaadd532e2547ee0a3cb41e5bd4a1ee3c72fd484275ce680dff49ba57  8549 picosoc/spiflash.v
3bbd69ef9d49ba82d0fb952a8ca68d0360f6ad4b0bb2aa55e5f1ce1744a7188e 13474 picosoc/spimemio.v
2bc57add38c5beb5ca4784f60ee69a076c24d34c0f071725cf36bc0887dccec9  2431 picosoc/start.s
"""


def _picorv32(line: str) -> RemoteFile:
    sha256, size, name = line.split()
    return RemoteFile(
        path=f"hdl/picorv32/{name}",
        urls=(
            f"https://raw.githubusercontent.com/YosysHQ/picorv32/{_PICORV32_COMMIT}/{name}",
            f"https://github.com/YosysHQ/picorv32/raw/{_PICORV32_COMMIT}/{name}",
        ),
        sha256=sha256,
        size=int(size),
    )


PICORV32 = Dataset(
    name="picorv32",
    description=(
        "PicoRV32 RISC-V soft core and PicoSoC (iCEBreaker top level, flash model, firmware "
        "start-up), YosysHQ/picorv32 at commit 87c89ac; ISC licence (COPYING)."
    ),
    citation="C. X. Wolf. PicoRV32: a size-optimized RISC-V CPU. github.com/YosysHQ/picorv32",
    files=tuple(_picorv32(line) for line in _PICORV32_FILES.strip().splitlines()),
)

DATASETS: dict[str, Dataset] = {d.name: d for d in (MNIST, LARVA, PICORV32)}


def get_dataset(name: str) -> Dataset:
    """Look a dataset up by name; unknown names raise a `UsageError` listing the known ones."""
    try:
        return DATASETS[name]
    except KeyError:
        known = ", ".join(sorted(DATASETS))
        raise UsageError(f"unknown dataset {name!r}; known datasets: {known}") from None
