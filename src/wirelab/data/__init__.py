"""Data layer: checksummed downloads, an offline data directory, MNIST and connectomes.

See `wirelab.data.dirs` for where files are looked for, `wirelab.data.registry` for what is
known, `wirelab.data.download` for how files arrive.
"""

from wirelab.data.connectome import Connectome, load_larva
from wirelab.data.connectomes import CONNECTOMES, load_connectome
from wirelab.data.dirs import cache_dir, data_dir
from wirelab.data.download import fetch, verify
from wirelab.data.mnist import load_mnist, read_idx
from wirelab.data.registry import DATASETS, Dataset, RemoteFile, get_dataset

__all__ = [
    "CONNECTOMES",
    "DATASETS",
    "Connectome",
    "Dataset",
    "RemoteFile",
    "cache_dir",
    "data_dir",
    "fetch",
    "get_dataset",
    "load_connectome",
    "load_larva",
    "load_mnist",
    "read_idx",
    "verify",
]
