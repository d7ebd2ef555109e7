from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.errors import UsageError
from wirelab.reservoir.ridge import (
    DEFAULT_LAMBDAS,
    LogisticClassifier,
    Ridge,
    RidgeAccumulator,
    RidgeClassifier,
    RowRidge,
    choose_lambda,
    fold_rows,
)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 10.0))
def test_ridge_equals_closed_form(seed: int, lam: float) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(60, 5))
    y = x @ rng.normal(size=(5, 2)) + 0.3 + rng.normal(0, 0.1, (60, 2))
    model = Ridge(lam).fit(x, y)
    # closed form with an unpenalised intercept: augment with a constant column
    xa = np.hstack([x, np.ones((60, 1))])
    reg = lam * np.diag([1, 1, 1, 1, 1, 0.0])
    wa = np.linalg.solve(xa.T @ xa + reg, xa.T @ y)
    np.testing.assert_allclose(model.coef_, wa[:5], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(model.intercept_, wa[5], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(model.predict(x), xa @ wa, rtol=1e-6, atol=1e-8)


def test_ridge_zero_lambda_is_least_squares() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(100, 4))
    y = rng.normal(size=100)
    xa = np.hstack([x, np.ones((100, 1))])
    ls = np.linalg.lstsq(xa, y, rcond=None)[0]
    model = Ridge(0.0).fit(x, y)
    np.testing.assert_allclose(model.coef_[:, 0], ls[:4], rtol=1e-8)
    assert model.predict(x).shape == (100,)


def test_streaming_accumulation_matches_one_shot_and_washout() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(500, 6))
    y = rng.normal(size=(500, 3))
    acc = RidgeAccumulator(6, 3)
    for chunk in np.array_split(np.arange(500), 7):
        acc.partial_fit(x[chunk], y[chunk])
    w, _ = acc.solve(0.5)
    one = Ridge(0.5).fit(x, y)
    np.testing.assert_allclose(w, one.coef_, rtol=1e-10)
    washed = Ridge(0.5, washout=100).fit(x, y)
    direct = Ridge(0.5).fit(x[100:], y[100:])
    np.testing.assert_allclose(washed.coef_, direct.coef_)


def test_cv_errors_match_explicit_held_out_errors() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(120, 8))
    y = x[:, :1] * 2 + rng.normal(0, 1.0, (120, 1))
    folds = np.array_split(np.arange(120), 4)
    acc = RidgeAccumulator(8, 1, 4)
    for k, idx in enumerate(folds):
        acc.partial_fit(x[idx], y[idx], k)
    lams = [1e-3, 1.0, 100.0]
    got = acc.cv_errors(lams)
    for li, lam in enumerate(lams):
        sse = 0.0
        for idx in folds:
            train = np.setdiff1d(np.arange(120), idx)
            m = Ridge(lam).fit(x[train], y[train])
            sse += np.sum((m.predict(x[idx]) - y[idx]) ** 2)
        assert got[li] == pytest.approx(sse / 120, rel=1e-8)
    model = Ridge(lams, folds=4).fit(x, y)
    assert model.ridge_ == lams[int(choose_lambda(got[:, None])[0][0])]


def test_classifiers_separate_gaussian_blobs() -> None:
    rng = np.random.default_rng(4)
    x = np.vstack([rng.normal(-1, 1, (200, 3)), rng.normal(1, 1, (200, 3))])
    labels = np.array(["left"] * 200 + ["right"] * 200)
    for clf in (RidgeClassifier(), LogisticClassifier()):
        clf.fit(x, labels)
        assert clf.score(x, labels) > 0.9
        assert set(clf.predict(x[:5])) <= {"left", "right"}
    proba = LogisticClassifier().fit(x, labels).predict_proba(x)
    np.testing.assert_allclose(proba.sum(1), 1.0)


def test_readout_errors() -> None:
    with pytest.raises(UsageError, match="rows"):
        Ridge(1.0).fit(np.zeros((10, 2)), np.zeros(9))
    with pytest.raises(UsageError, match="fit before"):
        Ridge(1.0).predict(np.zeros((3, 2)))
    with pytest.raises(UsageError, match="two classes"):
        RidgeClassifier().fit(np.zeros((4, 2)), np.zeros(4))
    with pytest.raises(UsageError, match="NaN"):
        Ridge(1.0).fit(np.full((4, 2), np.nan), np.zeros(4))


def _reference_standardized_cv(x, y, groups, grid):  # type: ignore[no-untyped-def]
    """The standardised leave-groups-out ridge written out directly (the form the fly taxis
    readout used before it moved here): the folds, the refits and the scores, step by step."""

    def solve(xs, ys, lam):  # type: ignore[no-untyped-def]
        mx, my = xs.mean(axis=0), ys.mean(axis=0)
        sd = xs.std(axis=0)
        sd[sd < 1e-12] = 1.0
        z, yc = (xs - mx) / sd, ys - my
        w = np.linalg.solve(z.T @ z + lam * np.eye(xs.shape[1]), z.T @ yc) / sd[:, None]
        return w, my - mx @ w

    uniq = np.unique(groups)
    scores = {}
    for lam in grid:
        err = 0.0
        for fold in np.array_split(uniq, min(5, len(uniq))):
            test = np.isin(groups, fold)
            w, b = solve(x[~test], y[~test], lam)
            err += float(np.sum((x[test] @ w + b - y[test]) ** 2))
        scores[lam] = err / len(y)
    best = min(scores, key=lambda k: scores[k])
    return solve(x, y, best), best, scores


def test_standardized_grouped_ridge_is_exactly_the_direct_form() -> None:
    rng = np.random.default_rng(7)
    s, b, f = 40, 6, 9
    x = rng.normal(size=(s * b, f)) * np.geomspace(1e-3, 10, f)  # very different scales
    x[:, 3] = 2.0  # a constant feature
    y = x[:, :2] @ rng.normal(size=(2, 2)) + rng.normal(0, 0.3, (s * b, 2))
    groups = np.tile(np.arange(b), s)  # interleaved runs
    grid = (1e-4, 1e-2, 1.0, 1e2, 1e4)
    (w, bias), best, scores = _reference_standardized_cv(x, y, groups, grid)
    model = Ridge(grid, standardize=True).fit(x, y, groups=groups)
    np.testing.assert_array_equal(model.coef_, w)
    np.testing.assert_array_equal(model.intercept_, bias)
    assert model.ridge_ == best
    assert model.cv_errors_ is not None
    # cv_errors_ is per output; times the number of outputs it is the per-sample sum, exactly
    assert [float(e) * 2 for e in model.cv_errors_] == list(scores.values())
    np.testing.assert_array_equal(model.predict(x), x @ w + bias)


def test_grouped_folds_keep_each_group_whole() -> None:
    groups = np.array([5, 1, 1, 3, 5, 2, 3, 2])
    folds = fold_rows(8, 3, groups)
    assert [sorted(set(groups[f])) for f in folds] == [[1, 2], [3], [5]]
    assert sorted(np.concatenate(folds)) == list(range(8))
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(8, 2)), rng.normal(size=8)
    assert Ridge([0.1, 1.0], folds=3).fit(x, y, groups=groups).ridge_ in (0.1, 1.0)
    with pytest.raises(UsageError, match="groups"):
        Ridge(1.0).fit(x, y, groups=groups[:5])


@pytest.mark.parametrize("classes", [2, 3])
def test_logistic_fit_minimises_the_stated_loss(classes: int) -> None:
    """At the fitted (W, b) the gradient of mean CE + l2/2 |W|^2 on standardised features is ~0
    (the C = 1/(l2 T), or 2/(l2 T) for two classes, of the docstring)."""
    rng = np.random.default_rng(classes)
    t, f, l2 = 150, 6, 0.05
    labels = rng.integers(0, classes, t)
    x = rng.normal(size=(t, f)) * 3 + labels[:, None] * rng.normal(size=f)
    clf = LogisticClassifier(l2=l2).fit(x, labels)
    z = (x - x.mean(0)) / (x.std(0) + 1e-12)
    logits = z @ clf.coef_ + clf.intercept_
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    g = (p - np.eye(classes)[labels]) / t
    grad_w = z.T @ g + l2 * clf.coef_
    assert np.abs(grad_w).max() < 1e-3 and np.abs(g.sum(0)).max() < 1e-3
    np.testing.assert_allclose(clf.predict_proba(x), p)


def _problem(seed: int, t: int, f: int, o: int, noise: float = 0.5):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t, f)) @ rng.normal(size=(f, f)) * 0.3 + rng.normal(size=f)
    y = x @ rng.normal(size=(f, o)) + 1.0 + noise * rng.normal(size=(t, o))
    return x, y


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([(90, 6, 3), (40, 60, 2), (30, 30, 1)]))
def test_fast_cv_paths_equal_the_per_lambda_reference(seed: int, shape: tuple) -> None:
    """The SVD path (data) and the eigendecomposition path (statistics) give the held-out errors
    of one linear solve per lambda and fold, per output, for F < T and F > T alike."""
    t, f, o = shape
    x, y = _problem(seed, t, f, o)
    folds = np.array_split(np.arange(t), 3)
    acc = RidgeAccumulator(f, o, 3)
    for k, idx in enumerate(folds):
        acc.partial_fit(x[idx], y[idx], k)
    grid = np.array([1e-3, 1e-1, 1.0, 10.0, 1e3])
    ref = acc.cv_errors_reference(grid)  # (L, O)
    np.testing.assert_allclose(RowRidge(x, y).cv_errors(folds, grid), ref, rtol=1e-7)
    np.testing.assert_allclose(acc.cv_errors(grid, per_output=True), ref, rtol=1e-6)
    np.testing.assert_allclose(acc.cv_errors(grid), ref.mean(1), rtol=1e-6)


def test_per_output_lambda_equals_a_plain_solve_per_column() -> None:
    """Outputs of very different noise get their own lambda; each column is the closed-form
    ridge at its lambda; the streaming fit agrees."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(300, 12))
    w = rng.normal(size=(12, 3))
    y = x @ w + rng.normal(size=(300, 3)) * np.array([0.01, 1.0, 30.0])
    grid = 10.0 ** np.arange(-4.0, 5.0)
    model = Ridge(grid, folds=4, per_output=True).fit(x, y)
    assert model.ridge_ is None and model.ridges_ is not None
    assert model.ridges_[0] < model.ridges_[2]  # the noisiest output is shrunk most
    for o, lam in enumerate(model.ridges_):
        plain = Ridge(float(lam)).fit(x, y[:, o])
        np.testing.assert_allclose(model.coef_[:, o], plain.coef_[:, 0], rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(model.intercept_[o], plain.intercept_[0], rtol=1e-8)
    assert model.cv_errors_by_output_ is not None
    np.testing.assert_array_equal(model.ridges_, grid[choose_lambda(model.cv_errors_by_output_)[0]])
    acc = RidgeAccumulator(12, 3, 4)
    for k, idx in enumerate(np.array_split(np.arange(300), 4)):
        acc.partial_fit(x[idx], y[idx], k)
    streamed = Ridge(grid, per_output=True).fit_statistics(acc)
    np.testing.assert_array_equal(streamed.ridges_, model.ridges_)
    np.testing.assert_allclose(streamed.coef_, model.coef_, rtol=1e-6, atol=1e-9)
    shared = Ridge(grid, folds=4).fit(x, y)  # one lambda: the rule on the mean error
    assert shared.ridge_ == grid[choose_lambda(shared.cv_errors_[:, None])[0][0]]
    np.testing.assert_array_equal(shared.coef_, Ridge(shared.ridge_).fit(x, y).coef_)


def test_on_edge_flags_a_binding_grid() -> None:
    x, y = _problem(5, 200, 10, 1, noise=1e-6)  # nearly noise-free: the smallest lambda wins
    assert Ridge([1e-2, 1e-1, 1.0], folds=4).fit(x, y).on_edge_
    x, y = _problem(6, 120, 40, 1, noise=3.0)  # noisy and many features: an interior optimum
    model = Ridge(folds=4).fit(x, y)  # DEFAULT_LAMBDAS
    assert not model.on_edge_, model.ridge_
    assert DEFAULT_LAMBDAS[0] < model.ridge_ < DEFAULT_LAMBDAS[-1]
    assert not Ridge(0.1).fit(x, y).on_edge_  # a single lambda is not a grid


def test_zero_lambda_without_full_rank_is_the_minimum_norm_solution() -> None:
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(20, 50)), rng.normal(size=(20, 2))  # F > T: X^T X is singular
    model = Ridge([0.0, 0.0], folds=2, per_output=True).fit(x, y)  # the SVD refit at lambda 0
    want = np.linalg.pinv(x - x.mean(0)) @ (y - y.mean(0))
    np.testing.assert_allclose(model.coef_, want, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(model.predict(x), y, atol=1e-8)  # it interpolates
