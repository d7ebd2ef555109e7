from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.reservoir.nulls import (
    DEFAULT_NULLS,
    NULLS,
    degree_preserving,
    erdos_renyi,
    make_null,
    mirror_permutation,
    mirrored,
    usable_nulls,
    weight_permutation,
)
from wirelab.reservoir.stats import empirical_p, summarize, z_score, z_with_note


def _graph(n: int = 80, seed: int = 0) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    m = (rng.random((n, n)) < 0.08) * rng.integers(1, 20, (n, n))
    np.fill_diagonal(m, 0)
    m[0, :] = 0
    m[0, 1:40] = 3  # a hub with many outputs
    return sp.csr_matrix(m.astype(float))


def _deg(m: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    b = (m != 0).astype(int)
    return np.asarray(b.sum(1)).ravel(), np.asarray(b.sum(0)).ravel()


def test_degree_preserving_keeps_every_in_and_out_degree() -> None:
    w = _graph()
    null = degree_preserving(w, seed=3)
    out_d, in_d = _deg(w)
    nout, nin = _deg(null)
    np.testing.assert_array_equal(nout, out_d)
    np.testing.assert_array_equal(nin, in_d)
    assert null.diagonal().sum() == 0  # no self-loops created
    np.testing.assert_allclose(null.sum(1), w.sum(1))  # out-strength kept
    changed = (null != 0).astype(int) - (w != 0).astype(int)
    assert abs(changed).sum() > 0.5 * w.nnz  # it really rewired
    assert (degree_preserving(w, seed=3) != null).nnz == 0  # seeded


def test_degree_preserving_on_the_larval_connectome(larva) -> None:  # type: ignore[no-untyped-def]
    w = larva.matrix()
    null = degree_preserving(larva, seed=1, swaps_per_edge=2)
    for a, b in zip(_deg(w), _deg(null), strict=True):
        np.testing.assert_array_equal(a, b)


def test_erdos_renyi_matches_density_and_weights() -> None:
    w = _graph()
    null = erdos_renyi(w, seed=1)
    assert null.nnz == w.nnz and null.diagonal().sum() == 0
    np.testing.assert_array_equal(np.sort(null.data), np.sort(w.data))
    assert _deg(null)[0].max() < 39  # the hub is gone


def test_weight_permutation_keeps_topology() -> None:
    w = _graph()
    null = weight_permutation(w, seed=2)
    assert ((null != 0) != (w != 0)).nnz == 0
    np.testing.assert_array_equal(np.sort(null.data), np.sort(w.data))
    assert not np.array_equal(null.data, w.data)


def test_mirror_swaps_hemispheres(larva) -> None:  # type: ignore[no-untyped-def]
    p = mirror_permutation(larva)
    m = mirrored(larva)
    w = larva.matrix()
    i, j = next((i, j) for i, j in zip(*w.nonzero(), strict=True) if larva.partner[i] >= 0)
    assert m[p[i], p[j]] == w[i, j]
    assert m.nnz == w.nnz
    left = larva.select(celltype="sensory", side="left")
    paired = left[larva.partner[left] >= 0]
    assert paired.size > 150 and set(larva.side[p[paired]]) == {"right"}
    unpaired = left[larva.partner[left] < 0]
    np.testing.assert_array_equal(p[unpaired], unpaired)
    assert (mirrored(larva).T != m.T).nnz == 0  # deterministic


def test_make_null_errors() -> None:
    with pytest.raises(UsageError, match="null model"):
        make_null("shuffle", _graph())
    with pytest.raises(UsageError, match="Connectome"):
        make_null("mirror", _graph())


def test_registry_matches_the_functions(larva) -> None:  # type: ignore[no-untyped-def]
    """The fly experiments call `degree_preserving`/`mirrored` on a Connectome; the registry
    entries (what ``--null-model`` runs) give the same matrices."""
    assert isinstance(degree_preserving(larva, 4, swaps_per_edge=1), sp.csr_matrix)
    w = _graph()
    assert (make_null("degree", w, seed=5) != degree_preserving(w, seed=5)).nnz == 0
    assert (make_null("weights", w, seed=5) != weight_permutation(w, seed=5)).nnz == 0
    assert (make_null("mirror", larva) != mirrored(larva)).nnz == 0


def test_what_each_null_needs_of_a_connectome(larva: Connectome) -> None:
    """degree-boundary needs two cell classes: the larva has them; esn-1000 (every unit one
    class) has one, where the boundary rewiring is the degree rewiring swap for swap."""
    esn = load_connectome("esn-1000")
    assert all(NULLS.get(kind).missing(larva) == "" for kind in DEFAULT_NULLS)
    assert NULLS.get("degree").missing(esn) == ""
    assert "one cell class (interneuron)" in NULLS.get("degree-boundary").missing(esn)
    plain, boundary = make_null("degree", esn, 3), make_null("degree-boundary", esn, 3)
    assert (plain != boundary).nnz == 0 and (plain != esn.matrix()).nnz > 0
    kept, left_out = usable_nulls(esn, DEFAULT_NULLS)
    assert kept == ["degree"] and list(left_out) == ["degree-boundary"]
    with pytest.raises(UsageError, match="'degree-boundary' is not defined on esn-1000"):
        usable_nulls(esn, ["degree", "degree-boundary", "mirror"])


def test_p_value_and_z() -> None:
    nulls = np.arange(19.0)  # 0..18
    assert empirical_p(100.0, nulls, True) == pytest.approx(1 / 20)
    assert empirical_p(-1.0, nulls, True) == pytest.approx(1.0)
    assert empirical_p(-1.0, nulls, False) == pytest.approx(1 / 20)
    assert z_score(9.0 + np.std(nulls, ddof=1), nulls, True) == pytest.approx(1.0)
    assert z_score(9.0 + np.std(nulls, ddof=1), nulls, False) == pytest.approx(-1.0)
    rows = [
        {"model": "connectome", "null": -1, "alpha": a, "task": "t", "metric": "m", "value": v}
        for a, v in ((0.5, 1.0), (1.0, 3.0))
    ] + [
        {"model": "degree", "null": i, "alpha": a, "task": "t", "metric": "m", "value": v + i}
        for i in range(3)
        for a, v in ((0.5, 0.0), (1.0, 1.0))
    ]
    s = summarize(rows, {"t": True})["t"]
    assert s["best_alpha"] == 1.0 and s["connectome"] == 3.0
    assert s["null_mean"] == pytest.approx(2.0) and s["p_value"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("score", "higher_is_better", "want", "word"),
    [
        (3.0, True, np.inf, "better"),
        (1.0, True, -np.inf, "worse"),  # was +inf before: the sign ignored the direction
        (1.0, False, np.inf, "better"),  # lower is better (NRMSE)
        (3.0, False, -np.inf, "worse"),
        (2.0, True, 0.0, "same"),
    ],
)
def test_z_with_equal_nulls_is_signed_by_the_difference(
    score: float, higher_is_better: bool, want: float, word: str
) -> None:
    z, note = z_with_note(score, [2.0, 2.0, 2.0], higher_is_better)
    assert z == want and note is not None and word in note and "zero spread" in note


def _rows(null_values: list[float]) -> list[dict[str, object]]:
    con = {"model": "connectome", "null": -1, "alpha": 1.0, "task": "t", "metric": "m", "value": 5}
    return [con] + [
        {"model": "degree", "null": i, "alpha": 1.0, "task": "t", "metric": "m", "value": v}
        for i, v in enumerate(null_values)
    ]


def test_a_single_null_reports_z_as_absent_with_the_reason() -> None:
    assert z_score(1.0, [0.5], True) is None
    s = summarize(_rows([4.0]), {"t": True})["t"]
    assert s["z"] is None and s["null_std"] is None and s["n_nulls"] == 1
    assert "at least 2 nulls" in s["z_note"] and "at least 2 nulls" in s["z_own_best_alpha_note"]
    assert s["p_value"] == pytest.approx(0.5)
    s = summarize(_rows([6.0, 6.0]), {"t": False})["t"]  # lower is better; nulls tie above
    assert s["z"] == np.inf and "better" in s["z_note"]
    s = summarize(_rows([4.0, 6.0]), {"t": True})["t"]
    assert s["z"] == pytest.approx(0.0) and s["z_note"] is None
