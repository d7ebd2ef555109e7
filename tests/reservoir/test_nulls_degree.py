"""Properties of the degree-preserving rewirings on random graphs (hypothesis), and the hash-set
kernel against the readable reference."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.reservoir.nulls import (
    NULLS,
    boundary_preserving,
    cell_classes,
    degree_noloops,
    degree_preserving,
    make_null,
)
from wirelab.reservoir.nulls.degree import rewire_part
from wirelab.reservoir.nulls.kernel import EMPTY, find, insert, remove

CELLTYPES = ("sensory", "inter", "DN-VNC", "DN-SEZ", "")
MODALITY = ("olfactory", "visual")


def random_matrix(n: int, density: float, seed: int, loops: float = 0.2) -> sp.csr_matrix:
    """A directed graph with integer weights and some self-loops."""
    rng = np.random.default_rng(seed)
    m = (rng.random((n, n)) < density) * rng.integers(1, 9, (n, n))
    np.fill_diagonal(m, (rng.random(n) < loops) * rng.integers(1, 9, n))
    return sp.csr_matrix(m.astype(float))


def random_connectome(n: int, density: float, seed: int) -> Connectome:
    """A connectome with a directed ``chemical`` type, a symmetric ``gap`` type and cell types."""
    rng = np.random.default_rng(seed + 1)
    chem = random_matrix(n, density, seed)
    g = np.triu((rng.random((n, n)) < density) * rng.integers(1, 5, (n, n)))
    gap = sp.csr_matrix((g + g.T).astype(float))
    celltype = rng.choice(CELLTYPES, n)
    annotations = tuple(
        frozenset({str(rng.choice(MODALITY))}) if t == "sensory" else frozenset() for t in celltype
    )
    return Connectome(
        name="toy",
        skeleton_ids=np.arange(n, dtype=np.int64),
        weights=sp.csr_matrix(chem + gap),
        edge_types={"chemical": chem, "gap": gap},
        celltype=celltype.astype(str),
        side=np.full(n, ""),
        partner=np.full(n, -1),
        annotations=annotations,
        cluster=np.full(n, -1),
    )


def degrees(m: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    b = (m != 0).astype(np.int64)
    return np.asarray(b.sum(1)).ravel(), np.asarray(b.sum(0)).ravel()


def out_weights(m: sp.csr_matrix) -> list[list[float]]:
    """Each neuron's sorted outgoing weights (each weight stays with its presynaptic neuron)."""
    m = sp.csr_matrix(m)
    return [sorted(m.data[m.indptr[i] : m.indptr[i + 1]].tolist()) for i in range(m.shape[0])]


def class_counts(m: sp.csr_matrix, labels: np.ndarray) -> np.ndarray:
    k = int(labels.max()) + 1
    coo = sp.coo_matrix(m)
    return np.bincount(labels[coo.row] * k + labels[coo.col], minlength=k * k)


def assert_kept(before: sp.csr_matrix, after: sp.csr_matrix, undirected: bool = False) -> None:
    """Degrees, loops, no duplicate entries; each neuron's out-weights (so the weight multiset),
    or for an undirected (symmetric) matrix the multiset of pair weights."""
    for a, b in zip(degrees(before), degrees(after), strict=True):
        np.testing.assert_array_equal(a, b)
    if undirected:
        pairs = [np.sort(sp.triu(m).tocsr().data) for m in (before, after)]
        np.testing.assert_array_equal(pairs[0], pairs[1])
    else:
        assert out_weights(before) == out_weights(after)
    np.testing.assert_array_equal(before.diagonal(), after.diagonal())
    coo = sp.coo_matrix(after)
    assert len(set(zip(coo.row.tolist(), coo.col.tolist(), strict=True))) == coo.nnz


graphs = st.tuples(st.integers(8, 40), st.floats(0.05, 0.4), st.integers(0, 10_000))


@settings(max_examples=40, deadline=None)
@given(graphs, st.integers(0, 1000))
def test_degree_null_keeps_degrees_weights_and_loops(graph: tuple, seed: int) -> None:
    w = random_matrix(*graph)
    assert_kept(w, degree_preserving(w, seed))


@settings(max_examples=30, deadline=None)
@given(graphs, st.integers(0, 1000))
def test_gap_junctions_stay_symmetric_with_their_degrees(graph: tuple, seed: int) -> None:
    con = random_connectome(*graph)
    gap = degree_preserving(con, seed, edge_types=["gap"])
    assert abs(gap - gap.T).sum() == 0
    assert_kept(con.edge_types["gap"], gap, undirected=True)
    both = degree_preserving(con, seed)  # chemical rewired on its own, gap on its own, summed
    chem = degree_preserving(con, seed, edge_types=["chemical"])
    assert abs(both - chem - gap).sum() == 0


@settings(max_examples=30, deadline=None)
@given(graphs, st.integers(0, 1000), st.sampled_from([None, ["chemical"], ["gap"]]))
def test_boundary_null_keeps_every_class_to_class_count(
    graph: tuple, seed: int, types: list[str] | None
) -> None:
    con = random_connectome(*graph)
    labels, _ = cell_classes(con)
    null = boundary_preserving(con, seed, edge_types=types)
    for part in ["chemical", "gap"] if types is None else types:
        rewired = boundary_preserving(con, seed, edge_types=[part])
        before = con.edge_types[part]
        assert_kept(before, rewired, undirected=part == "gap")
        np.testing.assert_array_equal(class_counts(before, labels), class_counts(rewired, labels))
    assert null.nnz > 0


@settings(max_examples=25, deadline=None)
@given(graphs, st.integers(0, 1000), st.booleans(), st.booleans())
def test_the_kernel_gives_the_reference_graph(
    graph: tuple, seed: int, undirected: bool, boundary: bool
) -> None:
    con = random_connectome(*graph)
    m = con.edge_types["gap" if undirected else "chemical"]
    labels = cell_classes(con)[0] if boundary else None
    fast = rewire_part(m, undirected, seed, 5, labels=labels, fast=True)
    slow = rewire_part(m, undirected, seed, 5, labels=labels, fast=False)
    assert (fast != slow).nnz == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 200)), max_size=300))
def test_the_hash_table_is_a_set(ops: list[tuple[bool, int]]) -> None:
    """Insert/remove sequences (many keys per slot run) leave the table equal to a Python set."""
    table, shift, mask = np.full(512, EMPTY, dtype=np.int64), 64 - 9, 511
    keys: set[int] = set()
    for add, key in ops:
        k = key * 1_000_003  # spread, then collide on purpose through the small key range
        if add and k not in keys:
            insert(table, shift, mask, k)
            keys.add(k)
        elif not add and k in keys:
            remove(table, shift, mask, k)
            keys.discard(k)
        assert all(find(table, shift, mask, x) >= 0 for x in keys)
    assert set(table[table != EMPTY].tolist()) == keys


def test_it_really_rewires_and_is_seeded() -> None:
    w = random_matrix(80, 0.08, 0)
    null = degree_preserving(w, seed=3)
    changed = (null != 0).astype(int) - (w != 0).astype(int)
    assert abs(changed).sum() > 0.5 * w.nnz
    assert (degree_preserving(w, seed=3) != null).nnz == 0
    assert (degree_preserving(w, seed=4) != null).nnz > 0


def test_degree_noloops_is_the_old_definition() -> None:
    """Loops swappable: they move onto pairs of neurons; the summed degrees are still kept."""
    w = random_matrix(60, 0.1, 1, loops=0.5)
    null = degree_noloops(w, seed=2)
    assert w.diagonal().astype(bool).sum() > 20 and null.diagonal().astype(bool).sum() <= 3
    for a, b in zip(degrees(w), degrees(null), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.sort(w.data), np.sort(null.data))


def test_the_registry_builds_the_same_nulls() -> None:
    con = random_connectome(30, 0.2, 5)
    for name, f in (
        ("degree", degree_preserving),
        ("degree-noloops", degree_noloops),
        ("degree-boundary", boundary_preserving),
    ):
        assert name in NULLS
        assert (make_null(name, con, seed=7) != f(con, 7)).nnz == 0
        got = make_null(name, con, seed=7, edge_types=["chemical"])
        assert (got != f(con, 7, edge_types=["chemical"])).nnz == 0


def test_errors_are_one_line() -> None:
    with pytest.raises(UsageError, match="Connectome with cell types"):
        make_null("degree-boundary", random_matrix(10, 0.3, 0))
    con = random_connectome(10, 0.3, 0)
    bare = Connectome(
        name="bare",
        skeleton_ids=con.skeleton_ids,
        weights=con.weights,
        edge_types=con.edge_types,
        celltype=np.full(10, ""),
        side=con.side,
        partner=con.partner,
        annotations=tuple(frozenset() for _ in range(10)),
        cluster=con.cluster,
    )
    with pytest.raises(UsageError, match="bare has no cell types"):
        boundary_preserving(bare, 1)
    lopsided = sp.csr_matrix(([1.0], ([0], [1])), shape=(10, 10))
    broken = Connectome(
        name="broken",
        skeleton_ids=con.skeleton_ids,
        weights=lopsided,
        edge_types={"gap": lopsided},
        celltype=con.celltype,
        side=con.side,
        partner=con.partner,
        annotations=con.annotations,
        cluster=con.cluster,
    )
    with pytest.raises(UsageError, match="'gap' is not symmetric"):
        degree_preserving(broken, 1)


def test_larva_keeps_its_loops_and_classes(larva: Connectome) -> None:
    w = larva.matrix()
    labels, names = cell_classes(larva)
    assert {"sensory:olfactory", "DN-VNC", "DN-SEZ", "interneuron", "output"} <= set(names)
    null = degree_preserving(larva, seed=1, swaps_per_edge=2)
    assert_kept(w, null)
    assert (null.diagonal() != 0).sum() == 537
    boundary = boundary_preserving(larva, seed=1, swaps_per_edge=2)
    assert_kept(w, boundary)
    np.testing.assert_array_equal(class_counts(w, labels), class_counts(boundary, labels))
    assert (degree_noloops(larva, seed=1).diagonal() != 0).sum() == 0
