"""Cell classes for the boundary-preserving null and the shortcut fractions.

`cell_classes(con)` gives every neuron one class from its cell type and annotations:

- ``sensory:<modality>``: a sensory neuron, by its modality token (the larva's ``olfactory``,
  ``gustatory-external``, ``gustatory-pharyngeal``, ``gut``, ``respiratory``, ``thermo-cold``,
  ``thermo-warm``, ``visual``; Cook's sensory categories ``sn1`` .. ``sn6`` in *C. elegans*);
  several tokens join with ``+``; none: ``sensory``;
- ``ascending``: the larva's ascending neurons (input from the nerve cord);
- ``DN-VNC`` and ``DN-SEZ``: the larva's descending neurons, each its own class;
- ``output``: the other output neurons (the larva's ``RGN`` to the ring gland, *C. elegans*'
  ``motor`` neurons);
- ``interneuron``: every other neuron, unannotated ones included.

A connectome without any cell type (a plain matrix, a user file without a neuron table) has no
classes: a one-line `UsageError`. ``labels, names = cell_classes(con)``: ``labels`` ``(N,)``
int64 indices into ``names`` (sorted).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError

MODALITIES = frozenset(
    {
        "olfactory",
        "gustatory-external",
        "gustatory-pharyngeal",
        "gut",
        "respiratory",
        "thermo-cold",
        "thermo-warm",
        "visual",
        *(f"sn{i}" for i in range(1, 7)),
    }
)
OWN_CLASS = frozenset({"ascending", "DN-VNC", "DN-SEZ"})  # cell types that are a class
OTHER_OUTPUTS = frozenset({"RGN", "motor"})  # cell types of the class "output"


def cell_class(celltype: str, annotations: frozenset[str]) -> str:
    """The class of one neuron (module docstring)."""
    if celltype == "sensory":
        modality = "+".join(sorted(annotations & MODALITIES))
        return f"sensory:{modality}" if modality else "sensory"
    if celltype in OWN_CLASS:
        return celltype
    return "output" if celltype in OTHER_OUTPUTS else "interneuron"


def cell_classes(con: Any) -> tuple[np.ndarray, tuple[str, ...]]:
    """``(labels (N,) int64, names)``: every neuron's class as an index into ``names``."""
    if not isinstance(con, Connectome):
        raise UsageError("cell classes need a Connectome with cell types, not a matrix")
    if not np.any(con.celltype != ""):
        raise UsageError(f"{con.name} has no cell types: the cell classes need annotations")
    per_neuron = [cell_class(str(t), a) for t, a in zip(con.celltype, con.annotations, strict=True)]
    names = tuple(sorted(set(per_neuron)))
    index = {c: i for i, c in enumerate(names)}
    return np.array([index[c] for c in per_neuron], dtype=np.int64), names
