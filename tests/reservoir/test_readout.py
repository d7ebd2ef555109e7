from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirelab.errors import UsageError
from wirelab.reservoir.readout import (
    LogisticClassifier,
    Ridge,
    RidgeAccumulator,
    RidgeClassifier,
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
    assert model.ridge_ == lams[int(np.argmin(got))]


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
