"""Derived files: a `Connectome` saved as one ``.npz`` in the cache, and read back.

A converted connectome (for example a *C. elegans* dataset parsed from the ``cect`` package, which
needs that package and pandas imported) is stored once under ``cache_dir()/derived`` and read back
without them. The format holds only plain arrays (``allow_pickle=False``):

- ``ids`` ``(N,)`` int64, ``names``/``celltype``/``side``/``annotations`` ``(N,)`` unicode
  (annotations ``;``-joined), ``partner``/``cluster`` ``(N,)`` int64;
- per edge type ``t`` (listed in order in ``edge_types``): ``t.row``, ``t.col`` int32 and
  ``t.data`` float64, the COO triplets of the ``(N, N)`` matrix ``[pre, post]``;
- ``source``: a JSON string (provenance and the published counts).

A file that cannot be read, lacks an array or is inconsistent counts as absent (it is rebuilt);
a cache that cannot be written only costs the conversion next time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes.base import Connectome
from wirelab.data.dirs import cache_dir
from wirelab.data.npzfile import read_npz, write_npz

_PER_NEURON = ("ids", "names", "celltype", "side", "annotations", "partner", "cluster")


def derived_path(stem: str) -> Path:
    """Where the derived file ``stem.npz`` lives (``cache_dir()/derived``)."""
    return cache_dir() / "derived" / f"{stem}.npz"


def to_arrays(con: Connectome) -> dict[str, np.ndarray]:
    """The arrays that `from_arrays` reads back into an equal `Connectome`."""
    arrays: dict[str, np.ndarray] = {
        "ids": np.asarray(con.skeleton_ids, dtype=np.int64),
        "names": np.array(con.names or [""] * con.n, dtype=str),
        "celltype": np.asarray(con.celltype, dtype=str),
        "side": np.asarray(con.side, dtype=str),
        "annotations": np.array([";".join(sorted(a)) for a in con.annotations], dtype=str),
        "partner": np.asarray(con.partner, dtype=np.int64),
        "cluster": np.asarray(con.cluster, dtype=np.int64),
        "edge_types": np.array(list(con.edge_types), dtype=str),
        "source": np.array(json.dumps(con.source, sort_keys=True)),
        "signed": np.array(con.signed),
    }
    for t, m in con.edge_types.items():
        coo = sp.coo_matrix(m)
        arrays[f"{t}.row"] = coo.row.astype(np.int32)
        arrays[f"{t}.col"] = coo.col.astype(np.int32)
        arrays[f"{t}.data"] = coo.data.astype(np.float64)
    return arrays


def from_arrays(arrays: dict[str, np.ndarray], name: str) -> Connectome:
    """A `Connectome` from `to_arrays` output (``weights`` is the sum of the edge types)."""
    n = len(arrays["ids"])
    mats = {
        str(t): sp.csr_matrix(
            (arrays[f"{t}.data"], (arrays[f"{t}.row"], arrays[f"{t}.col"])), shape=(n, n)
        )
        for t in arrays["edge_types"]
    }
    total = sp.csr_matrix((n, n), dtype=np.float64)
    for m in mats.values():
        total = total + m
    names = tuple(str(s) for s in arrays["names"])
    notes = tuple(frozenset(t for t in str(a).split(";") if t) for a in arrays["annotations"])
    return Connectome(
        name=name,
        skeleton_ids=arrays["ids"].astype(np.int64),
        weights=sp.csr_matrix(total),
        edge_types=mats,
        celltype=arrays["celltype"].astype(str),
        side=arrays["side"].astype(str),
        partner=arrays["partner"].astype(np.int64),
        annotations=notes,
        cluster=arrays["cluster"].astype(np.int64),
        names=names if any(names) else (),
        signed=bool(arrays["signed"]),
        source=json.loads(str(arrays["source"])),
    )


def _consistent(arrays: dict[str, np.ndarray]) -> bool:
    """Every expected array is there, per-neuron arrays are ``(N,)``, COO indices in ``[0, N)``."""
    needed = {*_PER_NEURON, "edge_types", "source", "signed"}
    if not needed <= set(arrays) or arrays["ids"].ndim != 1:
        return False
    n = len(arrays["ids"])
    if any(arrays[k].shape != (n,) for k in _PER_NEURON) or arrays["edge_types"].ndim != 1:
        return False
    for t in arrays["edge_types"]:
        if any(f"{t}.{p}" not in arrays for p in ("row", "col", "data")):
            return False
        row, col, data = (arrays[f"{t}.{p}"] for p in ("row", "col", "data"))
        if not row.ndim == col.ndim == data.ndim == 1 or {row.dtype.kind, col.dtype.kind} - set(
            "iu"
        ):
            return False
        if not len(row) == len(col) == len(data) or data.dtype.kind != "f":
            return False
        if len(row) and (min(row.min(), col.min()) < 0 or max(row.max(), col.max()) >= n):
            return False
    return n > 0


def read_derived(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays of a derived file, or None when absent, unreadable or inconsistent."""
    arrays = read_npz(path)
    return arrays if arrays is not None and _consistent(arrays) else None


def write_derived(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` atomically (temporary file, then rename); a failure to write is ignored."""
    write_npz(path, arrays)
