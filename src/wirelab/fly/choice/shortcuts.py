"""Shortcut fractions of the choice study's networks: how much of each cue's sensory class sends
its output straight to the DN-VNC neurons the readout reads, in the connectome and in each null.

A plain degree-preserving rewiring gives the larva many sensory-to-descending edges the
connectome lacks (docs/reservoir-nulls.md); a boundary-keeping rewiring keeps every
class-to-class edge count. Beside the scores, the study records for the connectome and for each
null (`network_shortcuts`, from `wirelab.reservoir.shortcuts.shortcut_fractions`: ``one_hop``,
``two_hop``, ``within_two`` per class) and summarises the family (`summarize`): per class and
measure the nulls' mean, SD, min, max and ``ratio = mean / connectome``::

    metrics["shortcuts"]["nulls"]["olfactory"]["one_hop"]["ratio"]   # e.g. 24 for plain nulls
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirelab.data.connectomes import Connectome
from wirelab.reservoir.shortcuts import MEASURES, shortcut_fractions


def network_shortcuts(
    con: Connectome, weights: Any, classes: tuple[str, ...]
) -> dict[str, dict[str, float]]:
    """``{"sensory" | class: {measure: share}}`` for ``weights`` (None: the connectome's) over
    every sensory class together and each of ``classes`` (the cues' modalities)."""
    f = shortcut_fractions(con, weights)
    named = {c: f[f"sensory:{c}"] for c in classes if f"sensory:{c}" in f}
    return {"sensory": f["sensory"]} | named


def summarize(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The connectome's fractions and, when the study ran nulls, the family's summary per class
    and measure: ``{mean, sd, min, max, ratio}`` over the nulls (``ratio``: mean / connectome,
    None where the connectome's is 0)."""
    conn = results["connectome"]["shortcuts"]
    nulls = [v["shortcuts"] for k, v in results.items() if k.startswith("null-")]
    out: dict[str, Any] = {"connectome": conn}
    if not nulls:
        return out
    family: dict[str, dict[str, dict[str, float | None]]] = {}
    for cls, ref in conn.items():
        family[cls] = {}
        for m in MEASURES:
            v = np.array([n[cls][m] for n in nulls])
            family[cls][m] = {
                "mean": float(v.mean()),
                "sd": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
                "min": float(v.min()),
                "max": float(v.max()),
                "ratio": float(v.mean() / ref[m]) if ref[m] > 0 else None,
            }
    out["nulls"] = family
    return out
