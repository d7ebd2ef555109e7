"""Data layer: checksummed downloads, an offline data directory, MNIST and connectomes.

See `wirelab.data.dirs` for where files are looked for, `wirelab.data.registry` for what is
known, `wirelab.data.download` for how files arrive, `wirelab.data.connectomes` for the
connectomes (registered names and user files, docs/connectomes.md).
"""

from wirelab.data.connectome import Connectome, load_larva
from wirelab.data.connectomes import (
    CONNECTOME,
    CONNECTOMES,
    check_connectome_source,
    connectome_edge_types,
    load_connectome,
)
from wirelab.data.dirs import cache_dir, data_dir
from wirelab.data.download import fetch, verify
from wirelab.data.mnist import load_mnist, read_idx
from wirelab.data.registry import DATASETS, Dataset, RemoteFile, get_dataset
from wirelab.data.user import load_user_connectome

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
