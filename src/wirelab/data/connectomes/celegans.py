"""*C. elegans* connectomes: Cook et al. 2019 (both adult sexes) and Witvliet et al. 2021 (eight
hermaphrodites from L1 to adult), read from the OpenWorm C. elegans Connectome Toolbox (``cect``).

``cect`` (MIT) bundles the published spreadsheets and, beside them, its own parse of each one as
JSON (``cect/cache/<Reader>.json``: the cell names and dense ``[pre, post]`` matrices of chemical
synapses ``Generic_CS`` and gap junctions ``Generic_GJ``). Reading the spreadsheets through
``cect``'s readers gives exactly the same matrices (checked once for every dataset; parsing the
spreadsheets is far slower than reading the JSON), so wirelab reads the JSON, checks its SHA-256
and the published counts of the full matrices, keeps the neurons, and caches the result as a
derived ``.npz`` (`wirelab.data.derived`): ``cect`` is imported once per dataset and machine.

`WORM_DATASETS` holds one `WormDataset` row per dataset; `wirelab.data.connectomes` registers
each as a connectome (a `WormLoader`), so a new dataset of ``cect`` is one row here.

What a loaded dataset holds (``docs/connectomes.md`` has the counts):

- neurons only (cect's name lists of hermaphrodite and male neurons; muscles, glia and other end
  organs dropped), sorted by name; ``names`` are the cell names (``"AVAL"``);
- edge types ``chemical`` (directed, ``[pre, post]``) and ``gap`` (the published symmetric matrix:
  a gap junction between i and j is in ``[i, j]`` and ``[j, i]``); ``weights = chemical + gap``;
- ``celltype``: ``sensory``, ``inter``, ``motor``, ``polymodal`` (pharyngeal MC, MI, NSM) or
  ``unknown`` (CAN), from cect's lists after Cook et al. 2019;
- ``side`` from the name: ``AVAL`` is left and ``AVAR`` right because both names exist; ``AVL``,
  ``PVR`` or ``DA1`` are unpaired (``""``); ``partner`` is the contralateral neuron or -1 when it
  is absent from the dataset;
- ``annotations``: the name and class (``aval``, ``ava``), Cook's categories (``sn1``..``sn6``,
  ``in1``..``in4``), cect's note (``amphid``, ``nociceptive``, ``layer 1 interneuron``,
  ``ventral cord motor neuron``, ...), ``pharyngeal``, ``male-specific``,
  ``hermaphrodite-specific``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes.base import Connectome, check_connectome
from wirelab.data.derived import derived_path, from_arrays, read_derived, to_arrays, write_derived
from wirelab.errors import CorruptDataError, UsageError

CECT_VERSION = "0.3.5"
EDGE_TYPES = ("chemical", "gap")
_DERIVED_VERSION = 1
_INSTALL = "pip install 'wirelab[celegans]'"
_COOK = "Cook et al. 2019, Nature 571:63 (adjacency matrices corrected July 2020)"
_WITVLIET = "Witvliet et al. 2021, Nature 596:257"


@dataclass(frozen=True)
class WormDataset:
    """One *C. elegans* dataset as bundled by ``cect``.

    Attributes:
        key: the registry name (``celegans-...``).
        reader: the cect reader, also the stem of its JSON in ``cect/cache``.
        sha256: of that JSON in cect 0.3.5.
        description: one line for ``--help`` and ``wirelab data list``.
        citation: the publication.
        cells: ``(all cells, chemical nonzero entries, chemical sum, gap nonzero, gap sum)`` of the
            full matrices, as cect's summary of the dataset states them (checked on conversion).
    """

    key: str
    reader: str
    sha256: str
    description: str
    citation: str
    cells: tuple[int, int, int, int, int]


_W = "Witvliet et al. 2021 dataset"
WORM_DATASETS: tuple[WormDataset, ...] = (
    WormDataset(
        "celegans-cook2019-herm",
        "Cook2019HermReader",
        "98bdafffce1341d3443a83066a6225a977c8218c28c27d69e4bd465782bd4cc8",
        "C. elegans adult hermaphrodite, whole animal (Cook et al. 2019): 302 neurons",
        _COOK,
        (473, 4879, 28113, 2883, 23313),
    ),
    WormDataset(
        "celegans-cook2019-male",
        "Cook2019MaleReader",
        "d5a89e77b175b88a97667900736280451598d51e674cd378edb7b81313a6a367",
        "C. elegans adult male, whole animal (Cook et al. 2019): 381 connected neurons",
        _COOK,
        (585, 5306, 45959, 3482, 31702),
    ),
    *(
        WormDataset(
            f"celegans-witvliet2021-{i}",
            f"WitvlietDataReader{i}",
            sha,
            f"C. elegans hermaphrodite brain, {_W} {i} ({stage})",
            _WITVLIET,
            cells,
        )
        for i, stage, sha, cells in (
            (
                1,
                "L1",
                "2656a6c34944bb84f1b8eed8ec5666016fbfd0b8d8db02bb160746c5afa02687",
                (187, 775, 1296, 164, 206),
            ),
            (
                2,
                "L1",
                "ac972ce70e6a569d7c120f66dae535e20527293c1463f366fbe3e6fe44345d90",
                (194, 986, 1895, 246, 264),
            ),
            (
                3,
                "L1",
                "e7c1b023c18402037b4499956642721126b946ff516024de19335855183c89d3",
                (198, 1012, 2128, 186, 216),
            ),
            (
                4,
                "L1",
                "8e6b5ca9afcaf58834aacc74cb9784a634947b2eed5238395e281f2cae4e680c",
                (204, 1136, 2777, 415, 483),
            ),
            (
                5,
                "L2",
                "34511bf183edecb2ed9109b17b5b33499dbc6556637fa265008a13e0ce517e7d",
                (211, 1515, 4116, 578, 832),
            ),
            (
                6,
                "L3",
                "e3b73f6e976e37d737ae5530933eb2d7f8e8fe80ca0b554116136ad2da1319eb",
                (216, 1525, 4456, 426, 532),
            ),
            (
                7,
                "adult",
                "aeff178edcc14f5e818f6c54a138bffcfd5aab27dd8153e2906de1fd6cd8669f",
                (222, 2202, 7467, 576, 794),
            ),
            (
                8,
                "adult",
                "3d2de8dc9e23f663d074dfbb2371367d64ec64ebc8469234e4f14ef78d539ad7",
                (219, 2186, 7970, 612, 851),
            ),
        )
    ),
)
BY_KEY = {d.key: d for d in WORM_DATASETS}


def cect_dir() -> Path:
    """The installed ``cect`` package directory, or a one-line `UsageError` naming the extra."""
    spec = importlib.util.find_spec("cect")
    if spec is None or spec.origin is None:
        raise UsageError(f"the C. elegans connectomes need the cect package: {_INSTALL}")
    return Path(spec.origin).parent


def _read_source(ds: WormDataset) -> tuple[list[str], dict[str, np.ndarray]]:
    """Cell names and dense ``[pre, post]`` matrices from cect's JSON, checksum verified."""
    path = cect_dir() / "cache" / f"{ds.reader}.json"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorruptDataError(f"{ds.key}: cannot read {path}: {exc.strerror}") from None
    if hashlib.sha256(raw).hexdigest() != ds.sha256:
        raise CorruptDataError(
            f"{ds.key}: {path.name} differs from the one in cect {CECT_VERSION}: {_INSTALL}"
        )
    data = json.loads(raw)
    nodes = [str(n) for n in data["nodes"]]
    mats = {k: np.asarray(v, dtype=np.float64) for k, v in data["connections"].items()}
    chem, gap = mats["Generic_CS"], mats["Generic_GJ"]
    got = (len(nodes), np.count_nonzero(chem), chem.sum(), np.count_nonzero(gap), gap.sum())
    if tuple(int(x) for x in got) != ds.cells:
        raise CorruptDataError(f"{ds.key}: expected (cells, edges, weights) {ds.cells}, read {got}")
    return nodes, {"chemical": chem, "gap": gap}


def _classes() -> dict[str, dict[str, Any]]:
    """Per neuron name: cell type, side-free class and annotation tokens, from ``cect.Cells``."""
    from cect import Cells as C  # the package imports pandas: only here, once per conversion

    groups = {
        "sensory": C.SENSORY_NEURONS_COOK
        + C.MALE_HEAD_SENSORY_NEURONS
        + C.MALE_NON_HEAD_SENSORY_NEURONS,
        "inter": C.INTERNEURONS_COOK + C.MALE_HEAD_INTERNEURONS + C.MALE_NON_HEAD_INTERNEURONS,
        "motor": C.MOTORNEURONS_COOK,
        "polymodal": C.PHARYNGEAL_POLYMODAL_NEURONS,
        "unknown": C.UNKNOWN_FUNCTION_NEURONS,
    }
    category = {n: k.lower() for k, ns in C.SENSORY_NEURONS_COOK_CATEGORIES.items() for n in ns}
    category |= {
        n: k.lower()
        for k, ns in C.INTERNEURONS_NONPHARYNGEAL_COOK_CATEGORIES.items()
        if k.startswith("IN")
        for n in ns
    }
    tags = {
        "pharyngeal": set(C.PHARYNGEAL_NEURONS),
        "male-specific": set(C.MALE_SPECIFIC_NEURONS),
        "hermaphrodite-specific": set(C.HERM_SPECIFIC_MOTORNEURONS),
    }
    out: dict[str, dict[str, Any]] = {}
    for celltype, names in groups.items():
        for n in names:
            note = C.get_cell_notes(n).split(";")[0].lower()
            tokens = {t.strip() for t in note.split(",")} | {n.lower()}
            tokens |= {category[n]} if n in category else set()
            tokens |= {t for t, members in tags.items() if n in members}
            out[n] = {"celltype": celltype, "tokens": tokens - {"???", ""}}
    return out


def side_of(name: str, known: set[str]) -> str:
    """``"left"``/``"right"`` when the name ends in L/R and its mirror name is a known neuron."""
    if name.endswith("L") and name[:-1] + "R" in known:
        return "left"
    if name.endswith("R") and name[:-1] + "L" in known:
        return "right"
    return ""


def convert(ds: WormDataset) -> Connectome:
    """The neurons of ``ds`` as a `Connectome` (needs cect; `load_celegans` caches the result)."""
    nodes, mats = _read_source(ds)
    classes = _classes()
    neurons = sorted(n for n in nodes if n in classes)
    keep = np.array([nodes.index(n) for n in neurons])
    n = len(neurons)
    edge_types = {
        t: sp.csr_matrix(m[np.ix_(keep, keep)], dtype=np.float64) for t, m in mats.items()
    }
    weights = sp.csr_matrix(edge_types["chemical"] + edge_types["gap"])
    known, pos = set(classes), {name: i for i, name in enumerate(neurons)}
    side = np.array([side_of(name, known) for name in neurons], dtype=object)
    partner = np.full(n, -1, dtype=np.int64)
    notes: list[frozenset[str]] = []
    for i, name in enumerate(neurons):
        mirror = name[:-1] + ("R" if side[i] == "left" else "L")
        partner[i] = pos.get(mirror, -1) if side[i] else -1
        cls = name[:-1] if side[i] else name
        notes.append(frozenset(classes[name]["tokens"] | {cls.lower()}))
    source = {
        "citation": ds.citation,
        "package": f"cect {CECT_VERSION} ({ds.reader})",
        "cells": ds.cells[0],
        "chemical": {"edges": ds.cells[1], "weight": ds.cells[2]},
        "gap": {"edges": ds.cells[3], "weight": ds.cells[4]},
        "kept": "neurons only; gap junctions symmetric (each in both directions)",
    }
    con = Connectome(
        name=ds.key,
        skeleton_ids=np.arange(n, dtype=np.int64),
        weights=weights,
        edge_types=edge_types,
        celltype=np.array([classes[m]["celltype"] for m in neurons], dtype=str),
        side=side.astype(str),
        partner=partner,
        annotations=tuple(notes),
        cluster=np.full(n, -1, dtype=np.int64),
        names=tuple(neurons),
        source=source,
    )
    check_connectome(con)
    return con


def load_celegans(key: str) -> Connectome:
    """The *C. elegans* dataset ``key`` from the derived cache (converted with cect if absent)."""
    ds = BY_KEY.get(key)
    if ds is None:
        raise UsageError(f"unknown C. elegans dataset {key!r}; choose one of: {', '.join(BY_KEY)}")
    path = derived_path(f"{key}-{ds.sha256[:12]}-v{_DERIVED_VERSION}")
    if (arrays := read_derived(path)) is not None:
        return from_arrays(arrays, key)
    con = convert(ds)
    write_derived(path, to_arrays(con))
    return con


class WormLoader:
    """A registry entry: ``WormLoader(key)()`` is ``load_celegans(key)``."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __call__(self) -> Connectome:
        return load_celegans(self.key)

    def __repr__(self) -> str:
        return f"WormLoader({self.key!r})"
