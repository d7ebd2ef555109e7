r"""The data layer: connectomes and datasets by name, checksummed downloads, an offline directory.

Every connectome is a `Connectome`: a directed, weighted matrix ``weights[pre, post]`` (``(N,
N)`` scipy CSR; ``weights[i, j]``: synapses from neuron ``i`` onto neuron ``j``), one matrix per
edge type (``edge_types``: larva ``aa``/``ad``/``da``/``dd``, *C. elegans* ``chemical``/``gap``)
and per-neuron annotations ``(N,)``: ``celltype`` (``sensory``, ``DN-VNC``, ...), ``side``
(``left``/``right``/``""``), ``partner`` (the contralateral neuron's index, or -1). Load one by
name with `load_connectome` (`CONNECTOMES` lists the names: ``larva``, ``esn-1000``, the
*C. elegans* sets ``celegans-cook2019-herm``, ``celegans-witvliet2021-1`` .. ``-8``) or give it
the path of your own edge list (``pre,post,weight[,edge_type]`` CSV or Parquet, or a scipy
``.npz`` matrix; docs/connectomes.md). Files (`DATASETS`: ``larva``, ``mnist``, ``picorv32``)
are read from ``$WIRELAB_DATA_DIR`` when there (`data_dir`), else downloaded once into the cache
(`cache_dir`) and checked against their SHA-256 (`fetch`, `verify`): a dataset by name is
``get_dataset("mnist")`` (its files, description and citation), its verified local files
``[fetch(f) for f in get_dataset("mnist").files]``, and MNIST's arrays `load_mnist`. `CONNECTOME`
is the click parameter type of every ``--connectome`` option (a registered name or a file).

Quickstart (the larval connectome and a user's edge list):

```python
from pathlib import Path
from wirelab.data import CONNECTOMES, load_connectome

print("registered:", ", ".join(CONNECTOMES.names()))
larva = load_connectome("larva")  # Winding et al. 2023, from $WIRELAB_DATA_DIR or downloaded
print(f"{larva.name}: {larva.n} neurons, {larva.weights.nnz} edges, types {larva.edge_type_names}")
pops = larva.populations()  # {celltype: {"left": n, "right": n}}
print(f"{len(pops)} cell types; sensory {pops['sensory']}, DN-VNC {pops['DN-VNC']}")

_ = Path("edges.csv").write_text("pre,post,weight\nA,B,3\nB,C,1\nC,A,2\nA,C,1\n")
mine = load_connectome("edges.csv")  # neurons: the ids in the edges, sorted
print(f"{mine.name}: {mine.n} neurons, weights[pre, post] = {mine.weights.toarray().tolist()}")
```

Every loader answers a bad name, a missing file or a malformed table with a one-line
`wirelab.errors.UsageError` (or `wirelab.errors.MissingDataError`, naming where the file was
looked for).
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
