"""Data layer: checksummed downloads, an offline data directory, MNIST and connectomes.

See `wirelab.data.dirs` for where files are looked for, `wirelab.data.datasets` for the
checksummed files wirelab knows (`DATASETS`), `wirelab.data.download` for how files arrive, and
`wirelab.data.connectomes` for the connectomes (`CONNECTOMES`: registered names and user files,
docs/connectomes.md).
"""

from wirelab.data.connectomes import (
    CONNECTOME,
    CONNECTOMES,
    Connectome,
    check_connectome_source,
    connectome_edge_types,
    load_connectome,
    load_user_connectome,
)
from wirelab.data.connectomes.larva import load_larva
from wirelab.data.datasets import DATASETS, Dataset, RemoteFile, get_dataset
from wirelab.data.datasets.mnist import load_mnist, read_idx
from wirelab.data.dirs import cache_dir, data_dir
from wirelab.data.download import fetch, verify

__all__ = [
    "CONNECTOME",
    "CONNECTOMES",
    "DATASETS",
    "Connectome",
    "Dataset",
    "RemoteFile",
    "cache_dir",
    "check_connectome_source",
    "connectome_edge_types",
    "data_dir",
    "fetch",
    "get_dataset",
    "load_connectome",
    "load_larva",
    "load_mnist",
    "load_user_connectome",
    "read_idx",
    "verify",
]
