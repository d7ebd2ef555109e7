"""Input and readout populations: which neurons receive input, which ones the readout sees.

A population is a sorted ``(P,)`` int64 array of neuron indices into the connectome's order
(the row/column order of ``W[pre, post]``). It can be given

- in Python: ``population(con, celltype="sensory", side="left", annotation=None, index=None)``;
- as a string (the CLI's ``--inputs`` / ``--outputs``): ``"sensory"``, ``"sensory:left"``,
  ``"DN-VNC:right"``, ``"annotation=olfactory"``, ``"annotation=olfactory:left"``,
  ``"index=0,5,7"``, ``"index=0-99"`` or ``"all"``. Several cell types join with ``+``
  (``"DN-VNC+DN-SEZ"``), and so do annotation tokens (``"annotation=olfactory+gustatory"``:
  any of them).

A user's neuron table (`wirelab.data.connectomes.user`: columns ``celltype`` and
``annotations``) names the populations of a whole-brain study: with a FlyWire-like table
(`wirelab.data.connectomes.generate`) ``--inputs annotation=olfactory+gustatory --outputs
descending`` drives the chemosensory neurons and reads out the descending neurons only (the
engine records the readout population's states and nothing else).

An empty selection raises `UsageError` naming the criteria (and, for an annotation, the
annotations the connectome has), never an empty readout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from wirelab.data.connectomes import SIDE_CHOICES, Connectome
from wirelab.errors import UsageError

SHOWN = 12  # annotations named in an empty selection's error


def population(
    con: Connectome | None,
    celltype: str | Iterable[str] | None = None,
    side: str | None = None,
    annotation: str | Iterable[str] | None = None,
    index: Sequence[int] | np.ndarray | None = None,
    *,
    n: int | None = None,
) -> np.ndarray:
    """Sorted unique ``(P,)`` int64 indices matching every given criterion.

    With ``con=None`` only ``index`` (checked against ``n``) is allowed.
    """
    size = con.n if con is not None else n
    if index is not None:
        idx = np.unique(np.asarray(index, dtype=np.int64).ravel())
        if size is not None and idx.size and (idx.min() < 0 or idx.max() >= size):
            raise UsageError(f"population index out of range [0, {size})")
    else:
        idx = None
    if con is None:
        if celltype is not None or side not in (None, "both") or annotation is not None:
            raise UsageError("selecting by cell type, side or annotation needs a Connectome")
        if idx is None:
            if size is None:
                raise UsageError("give an index (or n) to select a population without a connectome")
            idx = np.arange(size, dtype=np.int64)
    else:
        sel = con.select(celltype=celltype, side=side, annotation=annotation)
        idx = sel if idx is None else np.intersect1d(idx, sel)
    if idx.size == 0:
        crit = {
            "celltype": celltype,
            "side": side,
            "annotation": annotation,
            "index": None if index is None else "given",
        }
        desc = ", ".join(f"{k}={v}" for k, v in crit.items() if v is not None) or "all"
        raise UsageError(f"population is empty ({desc}){_known_annotations(con, annotation)}")
    return idx.astype(np.int64)


def _known_annotations(con: Connectome | None, annotation: object) -> str:
    """``"; annotations: a, b, ..."`` (the first `SHOWN` sorted) after an annotation that
    selected nothing, so the user sees what the neuron table calls its neurons."""
    if con is None or annotation is None:
        return ""
    known = sorted(set().union(*con.annotations))
    if not known:
        return "; the connectome has no annotations"
    more = f" ... ({len(known)} in all)" if len(known) > SHOWN else ""
    return f"; annotations: {', '.join(known[:SHOWN])}{more}"


def _parse_index(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out


def parse_population(
    con: Connectome | None, spec: str | Sequence[int] | np.ndarray, *, n: int | None = None
) -> np.ndarray:
    """A population from a CLI-style string (see module docstring) or an index sequence."""
    if not isinstance(spec, str):
        return population(con, index=spec, n=n)
    text = spec.strip()
    if not text:
        raise UsageError("population spec is empty")
    side: str | None = None
    if ":" in text:
        text, side = text.rsplit(":", 1)
        if side not in SIDE_CHOICES:
            raise UsageError(
                f"population side must be one of {', '.join(SIDE_CHOICES)}, not {side!r}"
            )
    if text == "all":
        return population(con, side=side, n=n)
    if text.startswith("index="):
        try:
            idx = _parse_index(text[len("index=") :])
        except ValueError:
            raise UsageError(f"bad index list in population {spec!r}") from None
        return population(con, side=side, index=idx, n=n)
    if text.startswith("annotation="):
        tokens = [t for t in text[len("annotation=") :].split("+") if t]
        return population(con, side=side, annotation=tokens, n=n)
    return population(con, celltype=text.split("+"), side=side, n=n)
