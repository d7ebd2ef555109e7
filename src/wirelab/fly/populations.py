"""Input and readout populations of the connectome controller.

Inputs: sensory neurons of one modality on each side. The modality is one of the
``additional_annotations`` tokens carried by the sensory neurons of the larval connectome
(Winding et al. 2023): olfactory, gustatory-external, gustatory-pharyngeal, gut, respiratory,
thermo-cold, thermo-warm, visual; ``all`` takes every sensory neuron of that side.
Readouts: DN-VNC (descending to the ventral nerve cord, i.e. to the legs) left/right, optionally
plus DN-SEZ (descending to the subesophageal zone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wirelab.data.connectomes import SIDES, Connectome
from wirelab.errors import UsageError

READOUTS = ("DN-VNC", "DN-VNC+DN-SEZ")


def modalities(con: Connectome) -> list[str]:
    """Sensory modalities present on both sides (annotation tokens of sensory neurons)."""
    sensory = con.select(celltype="sensory")
    per_side: dict[str, set[str]] = {s: set() for s in SIDES}
    for i in sensory:
        if con.side[i] in per_side:
            per_side[con.side[i]] |= set(con.annotations[i])
    return sorted(set.intersection(*per_side.values()))


def input_neurons(con: Connectome, modality: str, side: str) -> np.ndarray:
    """Sorted indices of the sensory neurons of ``modality`` (or ``all``) on ``side``."""
    if side not in SIDES:
        raise UsageError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    if modality == "all":
        return con.select(celltype="sensory", side=side)
    known = modalities(con)
    if modality not in known:
        raise UsageError(f"unknown modality {modality!r}; known: all, {', '.join(known)}")
    return con.select(celltype="sensory", side=side, annotation=modality)


@dataclass(frozen=True)
class Populations:
    """Index arrays: inputs per side, DN-VNC per side, and the full readout feature set."""

    input_left: np.ndarray
    input_right: np.ndarray
    dn_left: np.ndarray
    dn_right: np.ndarray
    features: np.ndarray  # readout neurons for a trained mapping (DN-VNC [+ DN-SEZ], L then R)

    @classmethod
    def build(cls, con: Connectome, modality: str, readout: str = "DN-VNC") -> Populations:
        if readout not in READOUTS:
            raise UsageError(f"readout must be one of {', '.join(READOUTS)}, not {readout!r}")
        types = readout.split("+")
        feats = np.concatenate([con.select(celltype=types, side=s) for s in SIDES])
        return cls(
            input_left=input_neurons(con, modality, "left"),
            input_right=input_neurons(con, modality, "right"),
            dn_left=con.select(celltype="DN-VNC", side="left"),
            dn_right=con.select(celltype="DN-VNC", side="right"),
            features=feats.astype(np.int64),
        )

    def input_matrix(self, n: int) -> np.ndarray:
        """``W_in`` ``(2, N)`` [channel, post]: channel 0 feeds the left inputs, 1 the right."""
        w_in = np.zeros((2, n))
        w_in[0, self.input_left] = 1.0
        w_in[1, self.input_right] = 1.0
        return w_in
