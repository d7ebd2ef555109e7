"""The `Connectome` object, and the larval *Drosophila* connectome (Winding et al. 2023) as one.

A `Connectome` holds any dataset (see `wirelab.data.connectomes` for the registered ones and user
files); the valid edge types are its own (``tuple(con.edge_types)``): the larva's ``aa/ad/da/dd``,
*C. elegans*' ``chemical/gap``, a user file's.

Orientation is explicit everywhere: ``weights[i, j]`` is the number of synapses from presynaptic
neuron ``i`` to postsynaptic neuron ``j`` (rows pre, columns post, as in the published CSVs).
The four edge-type matrices (axo-axonic ``aa``, axo-dendritic ``ad``, dendro-axonic ``da``,
dendro-dendritic ``dd``) are published in a different neuron order; they are aligned by skeleton
id on load, after which ``weights == aa + ad + da + dd`` exactly. `load_larva` checks that, and the
counts of this release (2,952 neurons, 110,677 edges, 352,611 synapses), and fails loudly if not.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from wirelab.data.dirs import cache_dir
from wirelab.data.download import fetch
from wirelab.data.npzfile import read_npz, write_npz
from wirelab.data.registry import LARVA
from wirelab.errors import CorruptDataError, UsageError

EDGE_TYPES = ("aa", "ad", "da", "dd")
EXPECTED_LARVA = {"neurons": 2952, "edges": 110677, "synapses": 352611}
SIDES = ("left", "right")
_DERIVED_VERSION = 1


def check_edge_types(
    edge_types: Iterable[str], valid: Iterable[str] = EDGE_TYPES, *, name: str = ""
) -> list[str]:
    """``edge_types`` as a list, or a `UsageError` unless a non-empty subset of ``valid`` (the
    connectome's own edge types, `Connectome.edge_type_names`; the larva's by default)."""
    chosen, allowed = list(edge_types), tuple(valid)
    bad = [e for e in chosen if e not in allowed]
    if bad or not chosen:
        where = f" of {name}" if name else ""
        raise UsageError(f"edge types{where} must be a non-empty subset of {allowed}, got {chosen}")
    return chosen


@dataclass(frozen=True, eq=False)
class Connectome:
    """A directed, weighted connectome with per-neuron annotations.

    Attributes:
        name: dataset name.
        skeleton_ids: ``(N,)`` int64 ids, the order of every per-neuron array and matrix axis.
        weights: ``(N, N)`` CSR synapse counts, ``[pre, post]``; ``weights == sum(edge_types)``.
        edge_types: ``{type: (N, N) CSR}`` aligned to ``skeleton_ids``; its keys are the valid
            edge types of this connectome (larva ``aa/ad/da/dd``, *C. elegans* ``chemical/gap``).
        celltype: ``(N,)`` str, ``""`` for neurons without annotation.
        side: ``(N,)`` str, ``"left"``, ``"right"`` or ``""`` (unpaired or not annotated).
        partner: ``(N,)`` int index of the contralateral pair partner, ``-1`` when unpaired.
        annotations: per neuron, the lower-cased ``;``-separated additional annotations
            (sensory modality such as ``olfactory``, neuron names, ...).
        cluster: ``(N,)`` int level-7 cluster, ``-1`` when not annotated.
        names: ``(N,)`` neuron names (``"AVAL"``) or ``()`` when the dataset has none.
        signed: whether weights may be negative (a user's signed matrix).
        source: provenance and the counts of the published files (shown by `summary`).
    """

    name: str
    skeleton_ids: np.ndarray
    weights: sp.csr_matrix
    edge_types: dict[str, sp.csr_matrix]
    celltype: np.ndarray
    side: np.ndarray
    partner: np.ndarray
    annotations: tuple[frozenset[str], ...]
    cluster: np.ndarray
    _index: dict[int, int] = field(default_factory=dict, repr=False)
    names: tuple[str, ...] = ()
    signed: bool = False
    source: dict[str, object] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        n = len(self.skeleton_ids)
        if self.weights.shape != (n, n):
            raise CorruptDataError(f"weights shape {self.weights.shape} != ({n}, {n})")
        if self.names and len(self.names) != n:
            raise CorruptDataError(f"{len(self.names)} names for {n} neurons")
        self._index.update({int(s): i for i, s in enumerate(self.skeleton_ids)})

    @property
    def n(self) -> int:
        return len(self.skeleton_ids)

    @property
    def edge_type_names(self) -> tuple[str, ...]:
        """The valid edge types of this connectome, in order."""
        return tuple(self.edge_types)

    def index_of(self, skeleton_id: int | str) -> int:
        """The index of a skeleton id, or of a neuron name (``"AVAL"``) in a dataset with names."""
        if isinstance(skeleton_id, str) and self.names and skeleton_id in self.names:
            return self.names.index(skeleton_id)
        try:
            return self._index[int(skeleton_id)]
        except (KeyError, ValueError):
            raise UsageError(f"neuron {skeleton_id!r} is not in {self.name}") from None

    @property
    def celltypes(self) -> list[str]:
        return sorted({c for c in self.celltype if c})

    def select(
        self,
        celltype: str | Iterable[str] | None = None,
        side: str | None = None,
        annotation: str | Iterable[str] | None = None,
    ) -> np.ndarray:
        """Indices (sorted ``int64``) of neurons matching every given criterion.

        ``celltype`` and ``annotation`` accept one value or several (any of them matches);
        ``annotation`` matches one of the ``;``-separated tokens, case-insensitively;
        ``side`` is ``"left"``, ``"right"`` or ``"both"``/None.
        """
        mask = np.ones(self.n, dtype=bool)
        if celltype is not None:
            wanted = {celltype} if isinstance(celltype, str) else set(celltype)
            unknown = wanted - set(self.celltypes)
            if unknown:
                raise UsageError(
                    f"unknown cell type(s) {sorted(unknown)}; known: {', '.join(self.celltypes)}"
                )
            mask &= np.isin(self.celltype, list(wanted))
        if side is not None and side != "both":
            if side not in SIDES:
                raise UsageError(f"side must be 'left', 'right' or 'both', not {side!r}")
            mask &= self.side == side
        if annotation is not None:
            tokens = {annotation} if isinstance(annotation, str) else set(annotation)
            tokens = {t.lower() for t in tokens}
            mask &= np.array([bool(a & tokens) for a in self.annotations], dtype=bool)
        return np.flatnonzero(mask).astype(np.int64)

    def matrix(self, edge_types: Iterable[str] | None = None) -> sp.csr_matrix:
        """``(N, N)`` float64 CSR ``[pre, post]``: all synapses, or the sum of some edge types."""
        if edge_types is None:
            return self.weights.astype(np.float64)
        chosen = check_edge_types(edge_types, self.edge_types, name=self.name)
        total = sp.csr_matrix((self.n, self.n), dtype=np.float64)
        for e in chosen:
            total = total + self.edge_types[e]
        return sp.csr_matrix(total, dtype=np.float64)

    def populations(self) -> dict[str, dict[str, int]]:
        """``{celltype: {"left": n, "right": n}}`` over annotated neurons, plus ``"unpaired": n``
        for cell types with neurons of neither side (*C. elegans* DA1, AVG, ...)."""
        out: dict[str, dict[str, int]] = {}
        for ct in self.celltypes:
            sel = self.celltype == ct
            out[ct] = {s: int(np.sum(sel & (self.side == s))) for s in SIDES}
            if unpaired := int(np.sum(sel & ~np.isin(self.side, SIDES))):
                out[ct]["unpaired"] = unpaired
        return out

    def summary(self) -> dict[str, object]:
        """Counts: neurons, edges, synapses (the sum of the weights; ``None`` for signed
        weights, whose sum counts nothing), per edge type, and the populations."""
        w = self.weights

        def synapses(m: sp.csr_matrix) -> int | None:
            return None if self.signed else int(round(float(m.sum())))

        return {
            "name": self.name,
            "neurons": self.n,
            "edges": int(w.nnz),
            "synapses": synapses(w),
            "annotated": int(np.sum(self.celltype != "")),
            "orientation": "weights[pre, post]",
            "edge_types": {
                e: {"edges": int(m.nnz), "synapses": synapses(m)}
                for e, m in self.edge_types.items()
            },
            "populations": self.populations(),
            **({"signed": True} if self.signed else {}),
            **({"source": self.source} if self.source else {}),
        }


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


def check_connectome(con: Connectome, expected: dict[str, int] | None = None) -> None:
    """Raise `CorruptDataError` unless edge types sum to the total and counts match."""
    total = sp.csr_matrix(con.weights.shape, dtype=np.float64)
    for m in con.edge_types.values():
        total = total + m
    diff = abs(total - con.weights)
    if diff.nnz and diff.max() != 0:
        raise CorruptDataError(
            f"{con.name}: all-all matrix != {' + '.join(con.edge_types)} after alignment "
            f"(max difference {diff.max()})"
        )
    if expected:
        got = {k: v for k, v in con.summary().items() if k in expected}
        if got != expected:
            raise CorruptDataError(f"{con.name}: expected counts {expected}, read {got}")
