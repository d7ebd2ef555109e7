"""The `Connectome` type: a directed, weighted connectome with per-neuron annotations.

A `Connectome` holds any dataset (`wirelab.data.connectomes` registers the known ones and reads
user files); the valid edge types are its own (``tuple(con.edge_types)``): the larva's
``aa/ad/da/dd``, *C. elegans*' ``chemical/gap``, a user file's.

Orientation is explicit everywhere: ``weights[i, j]`` is the number of synapses from presynaptic
neuron ``i`` to postsynaptic neuron ``j`` (rows pre, columns post, as in the published CSVs), and
``weights == sum(edge_types.values())`` (`check_connectome` verifies it, and published counts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from wirelab.errors import CorruptDataError, UsageError

SIDES = ("left", "right")
# A side selection: one hemisphere or both (populations, stimulation, the fly report).
SIDE_CHOICES = (*SIDES, "both")


def check_edge_types(
    edge_types: Iterable[str], valid: Iterable[str], *, name: str = ""
) -> list[str]:
    """``edge_types`` as a list, or a `UsageError` unless a non-empty subset of ``valid`` (the
    connectome's own edge types, `Connectome.edge_type_names`)."""
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
        """The annotated cell types, sorted (plain ``str``)."""
        return sorted({str(c) for c in self.celltype if c})

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
            if side not in SIDE_CHOICES:
                raise UsageError(f"side must be one of {', '.join(SIDE_CHOICES)}, not {side!r}")
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
