"""Classifiers on reservoir states: `RidgeClassifier` (ridge on +-1 one-hot targets, argmax; the
decision task's) and `LogisticClassifier` (multinomial logistic regression, L2 on standardised
features, scikit-learn's L-BFGS).

Example: ``RidgeClassifier(GRID, folds=3).fit(x, labels).score(x_test, labels_test)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wirelab.errors import UsageError
from wirelab.reservoir.ridge.estimators import Ridge
from wirelab.reservoir.ridge.linalg import check_xy
from wirelab.reservoir.ridge.select import DEFAULT_LAMBDAS


class RidgeClassifier:
    """Ridge on one-hot +-1 targets; the predicted class is the argmax of the outputs."""

    def __init__(self, ridge: float | Sequence[float] = DEFAULT_LAMBDAS, folds: int = 5) -> None:
        self.ridge = Ridge(ridge, folds=folds)
        self.classes_: np.ndarray | None = None

    def fit(self, x: np.ndarray, labels: np.ndarray) -> RidgeClassifier:
        labels = np.asarray(labels)
        self.classes_, inv = np.unique(labels, return_inverse=True)
        if self.classes_.size < 2:
            raise UsageError("a classifier needs at least two classes")
        target = -np.ones((labels.size, self.classes_.size))
        target[np.arange(labels.size), inv] = 1.0
        self.ridge.fit(x, target)
        return self

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self.ridge.predict(x))

    def predict(self, x: np.ndarray) -> np.ndarray:
        assert self.classes_ is not None
        return self.classes_[np.argmax(self.decision_function(x), axis=1)]

    def score(self, x: np.ndarray, labels: np.ndarray) -> float:
        return float(np.mean(self.predict(x) == np.asarray(labels)))


class LogisticClassifier:
    """Multinomial logistic regression on standardised features ``z``, loss
    ``mean_t CE(softmax(z_t @ W + b), y_t) + l2/2 |W|^2`` (``W`` ``(F, C)``, ``b`` unpenalised),
    fitted by scikit-learn's ``LogisticRegression`` (L-BFGS) with ``C = 1 / (l2 T)``.

    Two classes: scikit-learn fits one vector ``d`` with the penalty ``|d|^2 / 2``; the softmax
    optimum has ``W = [-d/2, d/2]``, whose penalty is ``|d|^2 / 4``, hence ``C = 2 / (l2 T)``.
    """

    def __init__(self, l2: float = 1e-3, max_iter: int = 500) -> None:
        if l2 < 0:
            raise UsageError("l2 must be >= 0")
        self.l2 = l2
        self.max_iter = max_iter
        self.classes_: np.ndarray | None = None
        self.coef_: np.ndarray | None = None
        self.intercept_: np.ndarray | None = None

    def fit(self, x: np.ndarray, labels: np.ndarray) -> LogisticClassifier:
        from sklearn.linear_model import LogisticRegression  # imported when a model is fitted

        x2, _ = check_xy(x)
        labels = np.asarray(labels)
        if labels.shape != (x2.shape[0],):
            raise UsageError(f"labels must be ({x2.shape[0]},), got {labels.shape}")
        self.classes_, inv = np.unique(labels, return_inverse=True)
        if self.classes_.size < 2:
            raise UsageError("a classifier needs at least two classes")
        self._mu = x2.mean(0)
        self._sd = x2.std(0) + 1e-12
        z = (x2 - self._mu) / self._sd  # (T, F)
        binary = self.classes_.size == 2
        c = (2.0 if binary else 1.0) / (self.l2 * z.shape[0]) if self.l2 > 0 else np.inf
        model = LogisticRegression(C=c, max_iter=self.max_iter).fit(z, inv)
        if binary:
            d, d0 = model.coef_[0], float(model.intercept_[0])
            self.coef_ = np.stack([-d / 2, d / 2], axis=1)  # (F, 2)
            self.intercept_ = np.array([-d0 / 2, d0 / 2])
        else:
            self.coef_ = model.coef_.T  # (F, C)
            self.intercept_ = model.intercept_.copy()
        return self

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        if self.coef_ is None or self.intercept_ is None:
            raise UsageError("call fit before predict")
        x2, _ = check_xy(x)
        return np.asarray(((x2 - self._mu) / self._sd) @ self.coef_ + self.intercept_)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        logits = self.decision_function(x)
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        return np.asarray(p / p.sum(1, keepdims=True))

    def predict(self, x: np.ndarray) -> np.ndarray:
        assert self.classes_ is not None
        return self.classes_[np.argmax(self.decision_function(x), axis=1)]

    def score(self, x: np.ndarray, labels: np.ndarray) -> float:
        return float(np.mean(self.predict(x) == np.asarray(labels)))
