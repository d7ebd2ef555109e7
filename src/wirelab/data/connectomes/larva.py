"""The larval *Drosophila* connectome (Winding et al. 2023) as a `Connectome`: `load_larva`.

The published zip (the ``larva`` dataset, `wirelab.data.datasets.larva`) holds five CSV matrices
``[pre, post]`` of synapse counts (all, and the edge types axo-axonic ``aa``, axo-dendritic
``ad``, dendro-axonic ``da``, dendro-dendritic ``dd``) and ``annotations.csv``. The edge-type
matrices are published in a different neuron order; they are aligned by skeleton id on load, after
which ``weights == aa + ad + da + dd`` exactly. `load_larva` checks that, and the counts of this
release (2,952 neurons, 110,677 edges, 352,611 synapses), and fails loudly if not. The parsed
matrices are cached as a derived ``.npz`` (COO triplets per matrix, `derived_keys`).
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes.base import SIDES, Connectome, check_connectome
from wirelab.data.datasets.larva import LARVA
from wirelab.data.dirs import cache_dir
from wirelab.data.download import fetch
from wirelab.data.npzfile import read_npz, write_npz
from wirelab.errors import CorruptDataError

EDGE_TYPES = ("aa", "ad", "da", "dd")
EXPECTED_LARVA = {"neurons": 2952, "edges": 110677, "synapses": 352611}
_DERIVED_VERSION = 1


def _read_matrix(zf: zipfile.ZipFile, member: str) -> tuple[np.ndarray, sp.csr_matrix]:
    with zf.open(member) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8")
        header = text.readline().strip().split(",")[1:]
        body = np.loadtxt(text, delimiter=",", dtype=np.float64, ndmin=2)
    col_ids = np.array(header, dtype=np.int64)
    row_ids = body[:, 0].astype(np.int64)
    values = body[:, 1:]
    if values.shape != (len(row_ids), len(col_ids)) or not np.array_equal(row_ids, col_ids):
        raise CorruptDataError(f"{member}: row and column skeleton ids differ")
    return row_ids, sp.csr_matrix(values)


def _member(zf: zipfile.ZipFile, name: str) -> str:
    for m in zf.namelist():
        if m.endswith("/" + name) and not m.startswith("__MACOSX"):
            return m
    raise CorruptDataError(f"{zf.filename}: no {name} inside the archive")


def _parse_matrices(zip_path: Path) -> dict[str, np.ndarray]:
    """Read the five matrices, align edge types to the all-all order, return arrays for an npz."""
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(zip_path) as zf:
        ids, full = _read_matrix(zf, _member(zf, "all-all_connectivity_matrix.csv"))
        arrays["skeleton_ids"] = ids
        pos = {int(s): i for i, s in enumerate(ids)}
        mats = {"all": full}
        for e in EDGE_TYPES:
            e_ids, m = _read_matrix(zf, _member(zf, f"{e}_connectivity_matrix.csv"))
            if set(e_ids.tolist()) != set(pos):
                raise CorruptDataError(f"{e}_connectivity_matrix.csv has a different neuron set")
            perm = np.array([pos[int(s)] for s in e_ids])  # e-order -> all-all order
            coo = m.tocoo()
            mats[e] = sp.csr_matrix((coo.data, (perm[coo.row], perm[coo.col])), shape=full.shape)
        for key, m in mats.items():
            coo = m.tocoo()
            arrays[f"{key}_row"] = coo.row.astype(np.int32)
            arrays[f"{key}_col"] = coo.col.astype(np.int32)
            arrays[f"{key}_data"] = coo.data.astype(np.float64)
    return arrays


def _read_annotations(zip_path: Path) -> list[dict[str, str]]:
    with zipfile.ZipFile(zip_path) as zf, zf.open(_member(zf, "annotations.csv")) as raw:
        return list(csv.DictReader(io.TextIOWrapper(raw, encoding="utf-8")))


def derived_keys() -> set[str]:
    """The arrays a derived connectome ``.npz`` must hold: ids plus COO triplets per matrix."""
    mats = ["all", *EDGE_TYPES]
    return {"skeleton_ids"} | {f"{m}_{part}" for m in mats for part in ("row", "col", "data")}


def _read_derived(derived: Path) -> dict[str, np.ndarray] | None:
    """The cached arrays, or None when the file is absent, unreadable or not what we wrote."""
    arrays = read_npz(derived)
    if arrays is None:
        return None
    return arrays if set(arrays) == derived_keys() and _consistent(arrays) else None


def _consistent(arrays: dict[str, np.ndarray]) -> bool:
    """Per matrix: ``row``, ``col`` ints in ``[0, n)``, ``data`` floats; 1-D, equally long."""
    n = arrays["skeleton_ids"].shape[0] if arrays["skeleton_ids"].ndim == 1 else -1
    for m in ["all", *EDGE_TYPES]:
        row, col, data = (arrays[f"{m}_{part}"] for part in ("row", "col", "data"))
        if not (row.ndim == col.ndim == data.ndim == 1 and len(row) == len(col) == len(data)):
            return False
        if row.dtype.kind not in "iu" or col.dtype.kind not in "iu" or data.dtype.kind != "f":
            return False
        if len(row) and (min(row.min(), col.min()) < 0 or max(row.max(), col.max()) >= n):
            return False
    return n > 0


def _cached_arrays(zip_path: Path) -> dict[str, np.ndarray]:
    """Arrays parsed from the archive, cached as a derived ``.npz``.

    A cached file that cannot be read or holds other arrays is rebuilt; a cache that cannot be
    written (read-only, or a path that is a file) only costs the parse next time.
    """
    derived = (
        cache_dir() / "derived" / f"larva-{LARVA.files[0].sha256[:16]}-v{_DERIVED_VERSION}.npz"
    )
    if (arrays := _read_derived(derived)) is not None:
        return arrays
    arrays = _parse_matrices(zip_path)
    write_npz(derived, arrays)
    return arrays


def load_larva(*, allow_download: bool = True, check: bool = True) -> Connectome:
    """Load (downloading if needed) and self-check the Winding et al. 2023 larval connectome."""
    zip_path = fetch(LARVA.files[0], allow_download=allow_download)
    arrays = _cached_arrays(zip_path)
    ids = arrays["skeleton_ids"]
    n = len(ids)

    def mat(key: str) -> sp.csr_matrix:
        return sp.csr_matrix(
            (arrays[f"{key}_data"], (arrays[f"{key}_row"], arrays[f"{key}_col"])), shape=(n, n)
        )

    weights = mat("all")
    edge_types = {e: mat(e) for e in EDGE_TYPES}
    pos = {int(s): i for i, s in enumerate(ids)}
    celltype = np.full(n, "", dtype=object)
    side = np.full(n, "", dtype=object)
    partner = np.full(n, -1, dtype=np.int64)
    cluster = np.full(n, -1, dtype=np.int64)
    notes: list[frozenset[str]] = [frozenset()] * n
    for row in _read_annotations(zip_path):
        members = {
            s: pos.get(int(row[f"{s}_id"])) for s in SIDES if row[f"{s}_id"].strip().isdigit()
        }
        tokens = frozenset(
            t.strip().lower() for t in row["additional_annotations"].split(";") if t.strip()
        )
        for s, i in members.items():
            if i is None:
                continue
            celltype[i] = row["celltype"].strip()
            side[i] = s
            cl = row["level_7_cluster"].strip()
            cluster[i] = int(cl) if cl.lstrip("-").isdigit() else -1
            notes[i] = tokens
        li, ri = members.get("left"), members.get("right")
        if li is not None and ri is not None:
            partner[li], partner[ri] = ri, li
    con = Connectome(
        name="larva",
        skeleton_ids=ids,
        weights=weights,
        edge_types=edge_types,
        celltype=celltype.astype(str),
        side=side.astype(str),
        partner=partner,
        annotations=tuple(notes),
        cluster=cluster,
    )
    if check:
        check_connectome(con, EXPECTED_LARVA)
    return con
