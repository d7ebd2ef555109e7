from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from wirelab.data import fetch
from wirelab.data.connectomes import check_connectome
from wirelab.data.connectomes.larva import EDGE_TYPES
from wirelab.data.datasets.larva import LARVA
from wirelab.errors import CorruptDataError, UsageError


def test_counts_from_the_real_files(larva) -> None:  # type: ignore[no-untyped-def]
    s = larva.summary()
    assert (s["neurons"], s["edges"], s["synapses"], s["annotated"]) == (2952, 110677, 352611, 2606)
    pops = s["populations"]
    assert pops["sensory"] == {"left": 211, "right": 219}
    assert pops["DN-VNC"] == {"left": 91, "right": 91}
    assert pops["DN-SEZ"] == {"left": 82, "right": 82}


def test_edge_types_sum_to_all(larva) -> None:  # type: ignore[no-untyped-def]
    total = sum(larva.edge_types[e] for e in EDGE_TYPES)
    assert abs(total - larva.weights).max() == 0
    assert larva.matrix(["ad"]).sum() == larva.edge_types["ad"].sum()


def test_orientation_rows_are_presynaptic(larva) -> None:  # type: ignore[no-untyped-def]
    # Read one row of the raw CSV and compare with the parsed row of that skeleton id.
    path = fetch(LARVA.files[0], allow_download=False)
    with zipfile.ZipFile(path) as zf:
        member = next(
            m
            for m in zf.namelist()
            if m.endswith("/all-all_connectivity_matrix.csv") and "MACOSX" not in m
        )
        text = io.TextIOWrapper(zf.open(member), encoding="utf-8")
        header = [int(h) for h in text.readline().strip().split(",")[1:]]
        row = text.readline().strip().split(",")
    pre = larva.index_of(int(row[0]))
    values = np.array(row[1:], dtype=float)
    posts = [larva.index_of(h) for h in header]
    assert np.array_equal(larva.weights[pre].toarray().ravel()[posts], values)
    # orientation is not symmetric: the transpose differs
    assert abs(larva.weights - larva.weights.T).max() > 0


def test_select_and_pairs(larva) -> None:  # type: ignore[no-untyped-def]
    left = larva.select(celltype="sensory", side="left")
    assert len(left) == 211 and set(larva.side[left]) == {"left"}
    both = larva.select(celltype=["DN-VNC", "DN-SEZ"])
    assert len(both) == 91 * 2 + 82 * 2
    olf = larva.select(celltype="sensory", annotation="olfactory")
    assert len(olf) > 0
    dn_left = larva.select(celltype="DN-VNC", side="left")
    partners = larva.partner[dn_left]
    assert np.all(partners >= 0) and set(larva.side[partners]) == {"right"}
    assert np.array_equal(larva.partner[partners], dn_left)


def test_select_rejects_unknown(larva) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="unknown cell type"):
        larva.select(celltype="sensroy")
    with pytest.raises(UsageError, match="side"):
        larva.select(side="middle")
    with pytest.raises(UsageError, match="edge types"):
        larva.matrix(["xx"])


def test_self_check_fails_loudly(larva) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    broken = dict(larva.edge_types)
    broken["aa"] = broken["aa"] * 2
    bad = dataclasses.replace(larva, edge_types=broken, _index={})
    with pytest.raises(CorruptDataError, match="aa \\+ ad"):
        check_connectome(bad)
    with pytest.raises(CorruptDataError, match="expected counts"):
        check_connectome(larva, {"neurons": 3016})
