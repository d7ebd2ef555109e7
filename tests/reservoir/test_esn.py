"""The random echo state network: matrix, registered loader and the random-ESN null."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from wirelab.errors import UsageError
from wirelab.reservoir.esn import load_esn, load_esn_1000, random_esn_matrix
from wirelab.reservoir.nulls import RADIUS_MATCHED, make_null, match_radius
from wirelab.reservoir.populations import parse_population
from wirelab.reservoir.weights import normalize, spectral_radius


def test_esn_1000_is_sparse_signed_gaussian_with_every_unit_readable() -> None:
    con = load_esn_1000()
    w = con.matrix()
    assert con.n == 1000 and w.nnz == 10_000  # density 1%
    assert w.diagonal().sum() == 0 and w.data.min() < 0 < w.data.max()
    assert abs(w.data.mean()) < 0.05 and w.data.std() == pytest.approx(1.0, rel=0.05)
    assert parse_population(con, "all").size == 1000
    assert parse_population(con, "unit").size == 1000
    with pytest.raises(UsageError, match="unknown cell type"):
        parse_population(con, "DN-VNC")
    assert (load_esn_1000().matrix() != w).nnz == 0  # a fixed network
    with pytest.raises(UsageError):
        load_esn(10, 1.5)


def test_random_esn_null_has_the_size_edge_count_and_after_matching_the_radius() -> None:
    rng = np.random.default_rng(0)
    counts = sp.csr_matrix((rng.random((60, 60)) < 0.1) * rng.integers(1, 9, (60, 60)) * 1.0)
    null = make_null("random-esn", counts, seed=4)
    assert null.shape == counts.shape and null.nnz == counts.nnz
    assert null.diagonal().sum() == 0 and null.data.min() < 0
    assert (make_null("random-esn", counts, seed=4) != null).nnz == 0
    assert "random-esn" in RADIUS_MATCHED
    for how in ("row", "spectral", "none"):
        target = spectral_radius(normalize(counts, how))
        matched = match_radius(normalize(null, how), target)
        assert spectral_radius(matched) == pytest.approx(target, rel=1e-8)
    with pytest.raises(UsageError, match="nilpotent"):
        match_radius(sp.csr_matrix(np.triu(np.ones((5, 5)), 1)), 1.0)
    with pytest.raises(UsageError):
        random_esn_matrix(3, 7)
