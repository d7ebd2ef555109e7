"""The datasets wirelab knows (`DATASETS`): where each file comes from and what its bytes must
hash to. ``wirelab data list / fetch / verify / info`` and the data summary loop over it.

Each entry is a `base.Dataset` in its own module (``mnist``, ``larva``, ``picorv32``): its
`base.RemoteFile` s with SHA-256 sums and, optionally, ``info``, the counts read from its files.
Adding a dataset is one module plus one line here (or ``DATASETS.add(...)`` from anywhere, e.g.
a test)::

    DATASETS.add("mine", "wirelab.data.datasets.mine:MINE", "what it holds")

Entries are lazy ``"module:attribute"`` strings: a dataset module may import the download code
(`wirelab.data.download`), which imports `base` from here.
"""

from __future__ import annotations

from wirelab.data.datasets.base import Dataset, RemoteFile
from wirelab.registry import Registry

__all__ = ["DATASETS", "Dataset", "RemoteFile", "get_dataset"]

DATASETS = Registry[Dataset]("dataset")
"""The checksummed files wirelab knows, by name (``mnist``, ``larva``, ``picorv32``): each a
`Dataset` of `RemoteFile` s; ``wirelab data fetch NAME`` / `fetch` bring them,
``DATASETS.get(name)`` gives the entry, ``DATASETS.names()`` the names."""

_D = "wirelab.data.datasets"
DATASETS.add("mnist", f"{_D}.mnist:MNIST", "MNIST handwritten digits (LeCun et al. 1998)")
DATASETS.add("larva", f"{_D}.larva:LARVA", "larval Drosophila connectome files (Winding 2023)")
DATASETS.add("picorv32", f"{_D}.picorv32:PICORV32", "PicoRV32 RISC-V core and PicoSoC sources")


def get_dataset(name: str) -> Dataset:
    """The dataset registered as ``name``, or a one-line `UsageError` naming the choices."""
    return DATASETS.get(name)
