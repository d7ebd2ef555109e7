"""The connectome controller: populations, fast path vs reference equation, mappings, ridge."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import requires_larva
from wirelab.data.connectomes import Connectome
from wirelab.errors import UsageError
from wirelab.fly.controller import ConnectomeController, ControllerConfig, reference_update
from wirelab.fly.mapping import FixedMapping, LinearMapping, fit_ridge_cv
from wirelab.fly.populations import Populations, input_neurons, modalities
from wirelab.reservoir import reservoir_weights
from wirelab.reservoir.ridge import CV_TOL


@requires_larva
def test_populations_follow_the_annotations(larva: Connectome) -> None:
    mods = modalities(larva)
    assert {"olfactory", "visual", "gustatory-external", "thermo-warm"} <= set(mods)
    left = input_neurons(larva, "olfactory", "left")
    assert len(left) == 21 and set(larva.side[left]) == {"left"}
    assert all("olfactory" in larva.annotations[i] for i in left)
    pops = Populations.build(larva, "olfactory", "DN-VNC+DN-SEZ")
    assert len(pops.dn_left) == len(pops.dn_right) == 91
    assert len(pops.features) == 2 * (91 + 82)
    w_in = pops.input_matrix(larva.n)
    assert w_in.shape == (2, larva.n) and w_in[0].sum() == 21 and w_in[1].sum() == 21
    with pytest.raises(UsageError, match="unknown modality"):
        input_neurons(larva, "sonar", "left")


@requires_larva
@pytest.mark.parametrize("normalize", ["row", "spectral"])
def test_fast_update_equals_reference_equation(larva: Connectome, normalize: str) -> None:
    cfg = ControllerConfig(normalize=normalize, alpha=0.9, leak=0.5, input_gain=2.0)
    ctrl = ConnectomeController(larva, cfg, batch=3)
    w = reservoir_weights(larva, normalize_by=normalize)
    w_in = ctrl.pops.input_matrix(larva.n)
    u = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    x = np.zeros((3, larva.n))
    for _ in range(6):
        dn, feats = ctrl.update(u)
        x = reference_update(w, x, u, w_in, cfg)
    np.testing.assert_allclose(ctrl.state[0, 0], x, atol=2e-5)
    np.testing.assert_allclose(dn[:, 0], x[:, ctrl.pops.dn_left].mean(axis=1), atol=2e-5)
    assert feats.shape == (3, 182)


@requires_larva
def test_row_normalisation_lets_dn_activity_through_spectral_buries_it(larva: Connectome) -> None:
    levels = {}
    for norm in ("row", "spectral"):
        ctrl = ConnectomeController(larva, ControllerConfig(modality="all", normalize=norm))
        for _ in range(20):
            dn, _ = ctrl.update(np.array([1.0, 0.0]))
        levels[norm] = float(dn.sum())
    assert levels["row"] > 10 * levels["spectral"] > 0


@given(
    dn=st.lists(st.floats(0, 1), min_size=2, max_size=2),
    gain=st.floats(-3, 3),
    offset=st.floats(-1, 2),
)
@settings(max_examples=30, deadline=None)
def test_fixed_mappings_are_mirror_images(dn: list[float], gain: float, offset: float) -> None:
    d = np.array([dn])
    ipsi = FixedMapping("ipsilateral", gain, offset)(d, d)
    contra = FixedMapping("contralateral", gain, offset)(d, d)
    np.testing.assert_allclose(ipsi, offset + gain * d)
    np.testing.assert_allclose(contra, ipsi[:, ::-1])


def test_bad_mapping_and_config_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        FixedMapping("diagonal")
    with pytest.raises(UsageError):
        ControllerConfig(normalize="max")
    with pytest.raises(UsageError):
        ControllerConfig(update_steps=0)


def test_ridge_equals_closed_form_and_recovers_a_linear_map() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 6)) * np.array([1, 10, 0.1, 1, 1, 1])
    w_true = rng.normal(size=(6, 2))
    y = x @ w_true + np.array([1.0, -2.0])
    groups = np.arange(400) % 8
    m, _, _ = fit_ridge_cv(x, y, groups, ridges=(0.0,))
    np.testing.assert_allclose(m.weight, w_true, atol=1e-8)
    np.testing.assert_allclose(m.bias, [1.0, -2.0], atol=1e-8)
    # closed form on standardised features with a penalty
    lam = 5.0
    mx, sd = x.mean(0), x.std(0)
    z = (x - mx) / sd
    wz = np.linalg.solve(z.T @ z + lam * np.eye(6), z.T @ (y - y.mean(0)))
    np.testing.assert_allclose(
        fit_ridge_cv(x, y, groups, ridges=(lam,))[0].weight, wz / sd[:, None], atol=1e-10
    )
    _, best, scores = fit_ridge_cv(x, y + 0.01 * rng.normal(size=y.shape), groups)
    # the selection rule: the largest ridge whose CV error is within CV_TOL of the smallest
    low = min(scores.values())
    assert best == max(k for k in scores if scores[k] <= low * (1 + CV_TOL))


def _former_fit_ridge(x: np.ndarray, y: np.ndarray, ridge: float) -> LinearMapping:
    """The ridge fly used to carry itself (standardised features, unpenalised bias)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    mx, my = x.mean(axis=0), y.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd < 1e-12] = 1.0
    z, yc = (x - mx) / sd, y - my
    w = np.linalg.solve(z.T @ z + ridge * np.eye(x.shape[1]), z.T @ yc) / sd[:, None]
    return LinearMapping(weight=w, bias=my - mx @ w)


def _former_fit_ridge_cv(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray
) -> tuple[LinearMapping, float, dict[float, float]]:
    uniq = np.unique(groups)
    folds = np.array_split(uniq, min(5, len(uniq)))
    scores: dict[float, float] = {}
    for lam in (1e-4, 1e-2, 1.0, 1e2, 1e4):
        err = 0.0
        for fold in folds:
            test = np.isin(groups, fold)
            if test.all() or not test.any():
                continue
            m = _former_fit_ridge(x[~test], y[~test], lam)
            err += float(np.sum((m(x[test], x[test]) - y[test]) ** 2))
        scores[lam] = err / len(y)
    best = min(scores, key=lambda k: scores[k])
    return _former_fit_ridge(x, y, best), best, scores


@pytest.mark.parametrize("runs", [1, 3, 7])
def test_ridge_is_bitwise_the_former_fly_ridge(runs: int) -> None:
    """Taxis-like data (float32 features, interleaved runs): same weights, penalty and scores."""
    rng = np.random.default_rng(runs)
    s, f = 30, 12
    x = (rng.normal(size=(s * runs, f)) * np.geomspace(1e-3, 1, f)).astype(np.float32)
    x[:, 2] = 0.5  # a constant feature
    y = np.tanh(x[:, :2].astype(np.float64) * 3) + rng.normal(0, 0.1, (s * runs, 2))
    groups = np.tile(np.arange(runs), s)
    new, best, scores = fit_ridge_cv(x, y, groups)
    old, old_best, old_scores = _former_fit_ridge_cv(x, y, groups)
    np.testing.assert_array_equal(new.weight, old.weight)
    np.testing.assert_array_equal(new.bias, old.bias)
    assert best == old_best and scores == old_scores


def test_null_names_round_trip_and_refuse_an_unknown_family() -> None:
    from wirelab.fly.controller import null_name, parse_null

    assert null_name("degree", 3) == "null-3"  # the name the fly studies have always used
    assert null_name("degree-boundary", 3) == "null-degree-boundary-3"
    for family in ("degree", "degree-boundary", "degree-noloops"):
        assert parse_null(null_name(family, 7)) == (family, 7)
    assert parse_null("row") is None and parse_null("mirror") is None
    with pytest.raises(UsageError, match="unknown null model 'bogus'"):
        parse_null("null-bogus-1")
    with pytest.raises(UsageError, match="null-\\[<family>-\\]<seed>"):
        parse_null("null-degree")


@requires_larva
def test_a_model_name_picks_the_null_family(larva: Connectome) -> None:
    """``null-<seed>`` is the degree rewiring of that seed; ``null-degree-boundary-<seed>`` the
    boundary-preserving one, a different matrix for the same seed; both keep every in- and
    out-degree, and only the boundary null keeps every class-to-class edge count."""
    from wirelab.fly.controller import model_weights
    from wirelab.reservoir.nulls import NULLS, cell_classes

    real = larva.matrix(list(larva.edge_type_names)).tocsr()
    plain = model_weights("larva", "null-3")
    boundary = model_weights("larva", "null-degree-boundary-3")
    assert plain is not None and boundary is not None
    assert (plain != NULLS.get("degree")(larva, 3)).nnz == 0
    assert (boundary != NULLS.get("degree-boundary")(larva, 3)).nnz == 0
    assert (plain != boundary).nnz > 0
    labels, names = cell_classes(larva)
    k = len(names)

    def class_pairs(w: object) -> np.ndarray:
        coo = sp.coo_matrix(w)
        return np.bincount(labels[coo.row] * k + labels[coo.col], minlength=k * k)

    for w in (plain, boundary):
        b = sp.csr_matrix(w) != 0
        assert np.array_equal(b.sum(axis=1).A1, (real != 0).sum(axis=1).A1)  # out-degrees
        assert np.array_equal(b.sum(axis=0).A1, (real != 0).sum(axis=0).A1)  # in-degrees
    assert np.array_equal(class_pairs(boundary), class_pairs(real))
    assert not np.array_equal(class_pairs(plain), class_pairs(real))
