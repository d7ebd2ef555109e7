from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.errors import UsageError
from wirelab.reservoir.weights import (
    as_csr,
    from_edge_list,
    normalize,
    parse_alphas,
    reservoir_weights,
    spectral_radius,
)


def test_spectral_normalisation_hits_target_on_directed_matrix_with_known_eigenvalues() -> None:
    # upper-triangular (directed, non-symmetric, non-normal) matrix: eigenvalues are the diagonal
    rng = np.random.default_rng(0)
    n = 600  # above the dense cut-off: exercises the ARPACK non-symmetric path
    diag = rng.uniform(-1, 1, n)
    diag[17] = -3.5  # the largest modulus is negative: a symmetric routine or |sum| would miss
    m = np.triu(rng.normal(0, 0.05, (n, n)), k=1) * (rng.random((n, n)) < 0.02)
    m[np.diag_indices(n)] = diag
    w = sp.csr_matrix(m)
    assert spectral_radius(w) == pytest.approx(3.5, rel=1e-6)
    for alpha in (0.5, 0.9, 1.3):
        out = reservoir_weights(w, normalize_by="spectral", alpha=alpha)
        assert spectral_radius(out) == pytest.approx(alpha, rel=1e-6)


def test_spectral_radius_of_rotation_is_one_not_the_symmetric_part() -> None:
    # a directed cycle: eigenvalues are the n-th roots of unity, spectral radius 1
    n = 30
    cyc = sp.csr_matrix((np.ones(n), (np.arange(n), (np.arange(n) + 1) % n)), shape=(n, n))
    assert spectral_radius(cyc) == pytest.approx(1.0)
    assert spectral_radius(2.0 * cyc.T) == pytest.approx(2.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 30), st.integers(0, 10_000))
def test_row_and_column_normalisation(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 4, (n, n)) * (rng.random((n, n)) < 0.4)
    w = sp.csr_matrix(m.astype(float))
    row = normalize(w, "row").toarray()
    has_out = m.sum(1) > 0
    np.testing.assert_allclose(row.sum(1)[has_out], 1.0)
    assert np.all(row.sum(1)[~has_out] == 0)
    col = normalize(w, "column").toarray()
    has_in = m.sum(0) > 0
    np.testing.assert_allclose(col.sum(0)[has_in], 1.0)
    np.testing.assert_array_equal(normalize(w, "none").toarray(), m)


def test_orientation_is_explicit() -> None:
    m = np.array([[0, 2.0, 0], [0, 0, 3.0], [1.0, 0, 0]])
    assert as_csr(m)[0, 1] == 2.0
    assert as_csr(m, orientation="post_pre")[1, 0] == 2.0
    edges = np.array([[0, 1, 2.0], [1, 2, 3.0], [2, 0, 1.0]])
    np.testing.assert_array_equal(from_edge_list(edges).toarray(), m)
    np.testing.assert_array_equal(from_edge_list([(0, 1), (1, 2), (0, 1)], n=4).toarray()[0, 1], 2)


def test_bad_inputs_raise_usage_errors() -> None:
    with pytest.raises(UsageError, match="square"):
        as_csr(np.zeros((3, 4)))
    with pytest.raises(UsageError, match="normalize"):
        normalize(sp.eye(3), "max")
    with pytest.raises(UsageError, match="NaN"):
        as_csr(np.array([[np.nan, 1.0], [0.0, 0.0]]))
    with pytest.raises(UsageError, match="nilpotent"):
        normalize(sp.csr_matrix(np.triu(np.ones((4, 4)), 1)), "spectral")
    with pytest.raises(UsageError, match="START:STOP:N"):
        parse_alphas("1:2")


def test_parse_alphas() -> None:
    np.testing.assert_allclose(parse_alphas("0.5:1.5:3"), [0.5, 1.0, 1.5])
    np.testing.assert_allclose(parse_alphas("0.1,0.2"), [0.1, 0.2])
    np.testing.assert_allclose(parse_alphas(0.7), [0.7])


def test_connectome_edge_types(larva) -> None:  # type: ignore[no-untyped-def]
    ad = as_csr(larva, edge_types=["ad"])
    assert ad.nnz == larva.edge_types["ad"].nnz
    w = reservoir_weights(larva, normalize_by="row", alpha=0.8)
    sums = np.asarray(w.sum(1)).ravel()
    np.testing.assert_allclose(sums[sums > 0], 0.8)


def test_row_and_column_normalisation_of_signed_weights_use_absolute_sums() -> None:
    """A row whose signed weights cancel (sum 0) is scaled by its absolute sum, not blown up;
    for non-negative weights nothing changes; auto picks row for counts, spectral for signed."""
    w = sp.csr_matrix(np.array([[0.0, 2.0, -2.0], [1.0, 0.0, 3.0], [0.5, -0.5, 0.0]]))
    row = normalize(w, "row").toarray()
    np.testing.assert_allclose(np.abs(row).sum(1), 1.0)
    np.testing.assert_allclose(row[0], [0.0, 0.5, -0.5])
    assert spectral_radius(row) <= 1.0 + 1e-12  # bounded by the largest absolute row sum
    np.testing.assert_allclose(np.abs(normalize(w, "column").toarray()).sum(0), 1.0)
    counts = sp.csr_matrix(np.array([[0.0, 2.0, 1.0], [3.0, 0.0, 1.0], [1.0, 1.0, 0.0]]))
    np.testing.assert_array_equal(
        normalize(counts, "row").toarray(), counts.toarray() / counts.toarray().sum(1)[:, None]
    )
    np.testing.assert_array_equal(normalize(counts, "auto").toarray(), normalize(counts).toarray())
    assert spectral_radius(normalize(w, "auto")) == pytest.approx(1.0)


@pytest.mark.parametrize("spec", ["nan", "0.5,inf", "-inf", [1.0, np.nan], float("nan"), "1:2:0"])
def test_non_finite_alphas_are_refused(spec: object) -> None:
    with pytest.raises(UsageError, match="alpha"):
        parse_alphas(spec)  # type: ignore[arg-type]
