"""``ROMMA`` against the slow reference, plus API behaviour.

With ``shuffle=False`` the estimator must reproduce the reference of
``tests/reference/romma.py`` (patterns materialised in the extended space,
each update solved afresh) on dense and CSR input: the same number of
updates, epochs and active passes, and the same a up to rounding (the loop
keeps a as a scale times a vector and ‖a‖² as a running value).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from perceptrons import PDM, ROMMA
from tests.reference import romma as reference
from tests.reference.streams import margin_stream as make_stream
from tests.reference.romma import run_reference

RTOL = 1e-9


CASES = {
    # name: (estimator kwargs, data kwargs)
    "separable-plain": ({"epsilon": 0.05, "active_sets": False,
                         "extension": None}, {}),
    "separable-active": ({"epsilon": 0.02, "extension": None}, {}),
    "extended-noisy": ({"epsilon": 0.05, "extension": 1.0},
                       {"noise": 0.15}),
    "extended-active-rho": ({"epsilon": 0.01, "extension": 0.5,
                             "augmentation": 2.0}, {"noise": 0.1, "n": 60}),
    "no-bias": ({"epsilon": 0.1, "augmentation": 0.0, "extension": 1.0,
                 "active_sets": False}, {"noise": 0.05}),
}


def _check_agrees(clf, ref):
    """The estimator's public attributes equal the reference state's."""
    assert clf.n_updates_ == ref.n_updates
    assert clf.n_mistakes_ == ref.n_mistakes
    assert_allclose(clf.coef_, ref.coef, rtol=RTOL, atol=1e-12)
    assert_allclose(clf.intercept_, ref.intercept, rtol=RTOL, atol=1e-12)
    assert_allclose(clf.directional_margin_, ref.directional_margin,
                    rtol=1e-8)


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_reference(case, seed, sparse):
    params, data = CASES[case]
    X, y = make_stream(seed, **data)
    clf = ROMMA(store_dual=True, shuffle=False, **params).fit(
        sp.csr_matrix(X) if sparse else X, y)
    ref = reference.fit(X, y, **params)
    assert ref.converged[0] and clf.converged_[0]
    _check_agrees(clf, ref)
    assert clf.n_iter_ == ref.n_iter
    assert clf.n_active_passes_ == ref.n_active_passes
    assert_allclose(clf.margin_bound_, ref.margin_bound, rtol=1e-8)
    # Guarantee on convergence: min_k a·y_k >= 1 - ε.
    assert clf.margin_fraction_[0] >= 1 - params["epsilon"] - 1e-9


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_partial_fit_is_one_reference_pass(sparse):
    X, y = make_stream(3, noise=0.1)
    clf = ROMMA(store_dual=True, epsilon=0.05, extension=1.0).partial_fit(
        sp.csr_matrix(X) if sparse else X, y, classes=[-1, 1])
    ref = reference.fit(X, y, epsilon=0.05, extension=1.0, active_sets=False,
                        max_iter=1)
    _check_agrees(clf, ref)


@pytest.mark.reference
def test_slack_old_constraint_restarts_at_pattern():
    # a = y1/‖y1‖² = [1, 0]; y2 = [0.5, 0.1]: ‖a‖²‖y2‖² = 0.26 < a·y2 = 0.5,
    # so the minimiser ignores the old half-space: a' = y2/‖y2‖².
    X = np.array([[1.0, 0.0], [0.5, 0.1]])
    y = np.array([1, 1])
    clf = ROMMA(store_dual=True, extension=None, epsilon=0.01, augmentation=0.0).partial_fit(
        X, y, classes=[0, 1])
    assert clf.n_updates_ == 2
    assert_allclose(clf.coef_[0], X[1] / (X[1] @ X[1]), rtol=1e-12)
    ref = run_reference(X, np.ones(2), 0.01, rho=0.0, max_epochs=1)
    assert_allclose(clf.coef_[0], ref["w"], rtol=1e-12)


def test_dual_coef_reconstructs_coef():
    X, y = make_stream(4, noise=0.1)
    clf = ROMMA(store_dual=True, epsilon=0.05, extension=1.0, random_state=0).fit(X, y)
    assert_allclose(clf.dual_coef_ @ X[clf.support_], clf.coef_, atol=1e-10)
    assert_allclose(clf.dual_coef_.sum(axis=1), clf.intercept_, atol=1e-10)


def test_margin_approaches_hard_margin_optimum():
    X, y = make_stream(5, n=30, d=3)
    romma = ROMMA(store_dual=True, extension=None, epsilon=0.001, random_state=0).fit(X, y)
    pdm = PDM(store_dual=True, extension=None, epsilon=0.001, random_state=0).fit(X, y)
    assert romma.converged_[0] and pdm.converged_[0]
    # Both are within 0.1% of γ_d <= 1/‖a‖ (ROMMA's own bound).
    assert romma.directional_margin_[0] >= (1 - 0.001) * pdm.directional_margin_[0] * (1 - 0.001)
    assert pdm.directional_margin_[0] <= romma.margin_bound_[0] * (1 + 1e-12)
    assert romma.directional_margin_[0] >= (1 - 0.001) * romma.margin_bound_[0] - 1e-12
    assert_allclose(romma.directional_margin_[0], pdm.directional_margin_[0], rtol=2e-3)


def test_multiclass_and_determinism():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = rng.integers(0, 3, 60)
    a = ROMMA(store_dual=True, extension=1.0, epsilon=0.05, random_state=7).fit(X, y)
    b = ROMMA(store_dual=True, extension=1.0, epsilon=0.05, random_state=7).fit(X, y)
    assert a.coef_.shape == (3, 4) and a.converged_.all()
    assert np.array_equal(a.coef_, b.coef_)
    assert np.array_equal(a.intercept_, b.intercept_)
    assert a.n_updates_ == b.n_updates_


@pytest.mark.parametrize("params", [
    {"epsilon": 0.0}, {"epsilon": 1.0}, {"epsilon": -0.1},
    {"extension": 0.0}, {"augmentation": -1.0}, {"max_iter": 0},
])
def test_bad_parameters(params):
    X, y = make_stream(0)
    with pytest.raises(ValueError):
        ROMMA(store_dual=True, **params).fit(X, y)


def test_bad_input():
    X, y = make_stream(0)
    with pytest.raises(TypeError):
        ROMMA(store_dual=True, multiple_updates=True)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError):
        ROMMA(store_dual=True).fit(X_nan, y)
    with pytest.raises(ValueError):
        ROMMA(store_dual=True).fit(X, np.ones_like(y))
    with pytest.raises(ValueError):
        ROMMA(store_dual=True).partial_fit(X, y)


def test_inseparable_without_extension_warns():
    X, y = make_stream(1, noise=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning):
            ROMMA(store_dual=True, extension=None, max_iter=5, random_state=0).fit(X, y)


def test_zero_row_is_skipped_without_bias():
    # ρ = 0 and no extension: y_k = 0 for a zero row, and no vector has
    # a·y_k >= 1; the row is skipped (no update), the rest converges.
    rng = np.random.default_rng(6)
    X = rng.standard_normal((30, 3))
    scores = X @ np.array([1.0, -0.5, 0.2])
    X, y = X[np.abs(scores) > 0.3], np.where(scores > 0, 1, -1)[
        np.abs(scores) > 0.3]
    X = np.vstack([X, np.zeros((1, 3))])
    y = np.append(y, 1)
    clf = ROMMA(store_dual=True, extension=None, epsilon=0.05, augmentation=0.0, random_state=0).fit(X, y)
    assert clf.converged_[0]
    assert X.shape[0] - 1 not in clf.support_
    assert clf.directional_margin_[0] == 0.0  # the minimum includes a·0 = 0
    assert clf.score(X[:-1], y[:-1]) == 1.0


def test_scale_folding_in_the_loop():
    # The same a stored as s·u with s = 1 or s = 1e200 (outside the loop's
    # range, so the first update folds it back): same updates, same a.
    from perceptrons._loops.romma import RommaRule, fold_scale, romma_pass
    from perceptrons.utils.validation import as_loop_arrays

    X, y = make_stream(7, noise=0.1)
    clf = ROMMA(store_dual=True, epsilon=0.2, extension=1.0, max_iter=1, active_sets=False,
                shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    signs = np.where(y == 1, 1.0, -1.0)
    yy = (X * X).sum(axis=1) + 2.0
    rows = np.arange(X.shape[0], dtype=np.int64)
    out = []
    for s in (1.0, 1e200):
        w = clf.coef_[0] / s
        c = np.zeros(X.shape[0])  # g_k, folded (s = 1) after fit
        c[clf.support_] = clf.dual_coef_[0] * signs[clf.support_]
        full_g = c / s
        sq = float(clf.coef_[0] @ clf.coef_[0] + clf.intercept_[0] ** 2
                   + c @ c)
        st = np.array([clf.intercept_[0] / s, sq, s, 0.0])
        n_upd, _, _ = romma_pass(rows, rows.shape[0], 0.0, rows,
                                 *as_loop_arrays(X), signs, yy, 1.0, 1.0,
                                 np.zeros(0),
                                 RommaRule(0.99), w, st,
                                 np.zeros(1, dtype=np.int64), full_g)
        fold_scale(w, st, full_g)
        out.append((n_upd, w, st[0], full_g))
    assert out[0][0] == out[1][0] > 0
    assert_allclose(out[1][1], out[0][1], rtol=1e-9, atol=1e-12)
    assert_allclose(out[1][2], out[0][2], rtol=1e-9, atol=1e-12)
    assert_allclose(out[1][3], out[0][3], rtol=1e-9, atol=1e-12)
