from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.reservoir.nulls import boundary_preserving
from wirelab.reservoir.shortcuts import row_normalised, shortcut_fractions


def toy() -> Connectome:
    """0, 1: olfactory sensory; 2: visual sensory; 3, 4: interneurons; 5: DN-VNC.

    0 -> 5 (1), 0 -> 3 (3); 1 -> 3 (4); 2 -> 4 (2); 3 -> 5 (1), 3 -> 4 (1); 4 -> 4 (1)."""
    edges = [(0, 5, 1.0), (0, 3, 3.0), (1, 3, 4.0), (2, 4, 2.0), (3, 5, 1.0), (3, 4, 1.0)]
    edges.append((4, 4, 1.0))
    pre, post, w = zip(*edges, strict=True)
    m = sp.csr_matrix((w, (pre, post)), shape=(6, 6))
    celltype = np.array(["sensory", "sensory", "sensory", "inter", "", "DN-VNC"])
    annotations = tuple(frozenset({a}) if a else frozenset() for a in
                        ["olfactory", "olfactory", "visual", "", "", ""])  # fmt: skip
    return Connectome(
        name="toy",
        skeleton_ids=np.arange(6, dtype=np.int64),
        weights=m,
        edge_types={"all": m},
        celltype=celltype,
        side=np.full(6, ""),
        partner=np.full(6, -1),
        annotations=annotations,
        cluster=np.full(6, -1),
    )


def test_the_fractions_by_hand() -> None:
    f = shortcut_fractions(toy())
    # olfactory output 4 + 4 = 8, of which 1 straight onto DN-VNC
    assert f["sensory:olfactory"]["one_hop"] == pytest.approx(1 / 8)
    # two steps: 3/8 of the walk at neuron 3 (from 0) + 4/8 (from 1), then half of 3's output
    # onto 5; the 1/8 that reached 5 first stays there only if 5 had outputs (it has none)
    assert f["sensory:olfactory"]["two_hop"] == pytest.approx(7 / 8 * 1 / 2)
    assert f["sensory:olfactory"]["within_two"] == pytest.approx(1 / 8 + 7 / 16)
    assert f["sensory:visual"] == {"one_hop": 0.0, "two_hop": 0.0, "within_two": 0.0}
    assert f["sensory"]["one_hop"] == pytest.approx(1 / 10)


def test_row_normalised_uses_absolute_weights() -> None:
    p = row_normalised(sp.csr_matrix(np.array([[1.0, -3.0], [0.0, 0.0]])))
    np.testing.assert_allclose(p.toarray(), [[0.25, 0.75], [0.0, 0.0]])


def test_a_boundary_null_keeps_every_one_hop_share(larva: Connectome) -> None:
    """A boundary swap keeps each edge (and its weight) in its class pair and every out-strength,
    so ``W[S, T]`` and ``sum out[S]`` are kept: the one-hop share is exact, the two-hop one not."""
    want = shortcut_fractions(larva)
    got = shortcut_fractions(larva, boundary_preserving(larva, seed=3, swaps_per_edge=2))
    for cls, row in want.items():
        assert got[cls]["one_hop"] == pytest.approx(row["one_hop"], rel=1e-12, abs=1e-15)
    assert any(got[c]["two_hop"] != pytest.approx(r["two_hop"]) for c, r in want.items())


def test_errors() -> None:
    con = toy()
    with pytest.raises(UsageError, match="no 'DN-SEZ' neurons"):
        shortcut_fractions(con, target="DN-SEZ")
    with pytest.raises(UsageError, match="shape"):
        shortcut_fractions(con, sp.csr_matrix((3, 3)))
    with pytest.raises(UsageError, match="Connectome with cell types"):
        shortcut_fractions(con.weights)


def test_larva_one_hop_equals_the_direct_weight_share(larva: Connectome) -> None:
    f = shortcut_fractions(larva)
    w = larva.matrix()
    olf = larva.select(celltype="sensory", annotation="olfactory")
    dn = larva.select(celltype="DN-VNC")
    want = w[olf][:, dn].sum() / w[olf].sum()
    assert f["sensory:olfactory"]["one_hop"] == pytest.approx(want)
    assert all(0 <= v <= 1 for row in f.values() for v in row.values())
