"""``PDM`` and ``PFM`` against the slow reference, plus API behaviour.

STYLE habit 11: with ``shuffle=False`` the estimators must reproduce the
reference of ``tests/reference/pdm.py`` (patterns materialised in the
extended space, ‖a‖ recomputed at every step) on dense and CSR input: the
same per-example update counts (hence the same updates, in number and
place), the same epochs, and the same a up to rounding. The compiled loops
round differently (fast-math dense dot product, running ‖a‖²), so weights
are compared to ``RTOL``; a decision within that rounding of its threshold
would make them diverge, which random float data does not produce.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from perceptrons import PDM, PFM
from perceptrons._loops.margin import RULE_PDM, RULE_PFM, n_multiple_updates
from perceptrons.models.margin import epsilon_schedule
from tests.reference import pdm as reference
from tests.reference.pdm import directional_margin, extended_patterns
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import margin_stream as make_stream

RTOL = 1e-9


def _internal(est, name):
    """The one access of this module to an estimator's state beyond its
    public attributes (the running scalars: ‖a‖² in column 1)."""
    return {"_scalars": est.state_.scalars}[name]


def _fmt(X, sparse):
    return sp.csr_matrix(X) if sparse else X


# name: (estimator, its parameters, data kwargs)
CASES = {
    "pdm-plain": (PDM, dict(extension=None, epsilon=0.2), dict()),
    "pdm-plain-ext": (PDM, dict(epsilon=0.1, extension=0.7, augmentation=2.0),
                      dict(noise=0.15)),
    "pdm-succ": (PDM, dict(epsilon=0.05, successive=3.0, extension=1.0),
                 dict(noise=0.1)),
    "pfm-plain": (PFM, dict(extension=None, beta=0.05), dict()),
    "pfm-ext": (PFM, dict(beta=0.05, extension=1.0, augmentation=0.5),
                dict(noise=0.2)),
}


def _check_agrees(est, ref):
    """The estimator's public attributes equal the reference state's."""
    assert_array_equal(est.support_, np.flatnonzero(ref.counts[0]))
    assert_array_equal(est.dual_coef_[0], ref.dual_coef[0][est.support_])
    assert est.n_updates_ == ref.n_updates
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_iter_ == ref.n_iter
    assert_array_equal(est.converged_, ref.converged)
    scale = max(1.0, float(np.abs(ref.a[0]).max()))
    assert_allclose(est.coef_, ref.coef, rtol=RTOL, atol=RTOL * scale)
    assert_allclose(est.intercept_, ref.intercept, rtol=RTOL,
                    atol=RTOL * scale)
    assert_allclose(est.directional_margin_, ref.directional_margin,
                    rtol=1e-8, atol=1e-12)
    assert_allclose(est.margin_bound_, ref.margin_bound, rtol=1e-8)


def _fit(cls, params, X, y, sparse, **kw):
    est = cls(store_dual=True, shuffle=False, **params, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(_fmt(X, sparse), y)


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plain_matches_reference(case, seed, sparse):
    cls, params, data_kwargs = CASES[case]
    X, y = make_stream(seed, **data_kwargs)
    options = dict(active_sets=False, multiple_updates=False, max_iter=60)
    est = _fit(cls, params, X, y, sparse, **options)
    _check_agrees(est, reference.fit(X, y, **params, **options))


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("seed", [3, 4])
def test_active_sets_and_multiple_updates_match_reference(case, seed, sparse):
    cls, params, data_kwargs = CASES[case]
    X, y = make_stream(seed, **data_kwargs)
    est = _fit(cls, params, X, y, sparse, max_iter=8)
    ref = reference.fit(X, y, **params, max_iter=8)
    _check_agrees(est, ref)
    assert est.n_active_passes_ == ref.n_active_passes


@pytest.mark.reference
def test_multiclass_is_one_vs_rest_of_binary_runs():
    X, y, _, _, _ = _make_stream(5, n_classes=3, n=45, d=4,
                                 labels=[7, 17, 27])
    params = dict(epsilon=0.1, extension=1.0, active_sets=False,
                  multiple_updates=False, max_iter=30)
    est = _fit(PDM, params, X, y, sparse=False)
    ref = reference.fit(X, y, **params)
    assert est.coef_.shape == (3, 4)
    assert_array_equal(est.classes_, ref.classes)
    assert_array_equal(est.n_updates_per_problem_, ref.n_updates_per_problem)
    assert_array_equal(est.n_iter_per_problem_, ref.n_iter_per_problem)
    assert_allclose(est.coef_, ref.coef, rtol=RTOL, atol=1e-9)
    assert_allclose(est.intercept_, ref.intercept, rtol=RTOL, atol=1e-9)
    assert_array_equal(est.dual_coef_, ref.dual_coef[:, est.support_])
    assert not np.delete(ref.dual_coef, est.support_, axis=1).any()
    assert est.n_updates_ == est.n_updates_per_problem_.sum()
    assert est.predict(X).shape == (45,)


@pytest.mark.reference
def test_partial_fit_is_one_plain_pass():
    X, y = make_stream(6, noise=0.1)
    est = PDM(store_dual=True, epsilon=0.3, extension=1.0)
    est.partial_fit(X, y, classes=[-1, 1])
    ref = reference.fit(X, y, epsilon=0.3, extension=1.0, active_sets=False,
                        multiple_updates=False, max_iter=1)
    assert ref.n_updates > 0 and not ref.converged[0]
    _check_agrees(est, ref)
    # a second call: fresh extension coordinates, earlier ones kept in ‖a‖
    est.partial_fit(X, y)
    assert est.n_iter_ == 2
    assert np.all(est.margin_bound_ > 0)


def test_partial_fit_keeps_retired_extension_coordinates():
    X, y = make_stream(18, noise=0.2)
    delta = 0.8
    est = PDM(store_dual=True, epsilon=0.2, extension=delta)
    est.partial_fit(X, y, classes=[-1, 1])
    first = np.abs(est.dual_coef_[0])
    est.partial_fit(X[::-1], y[::-1])
    second = np.abs(est.dual_coef_[0])
    w, b = est.coef_[0], est.intercept_[0]
    sq_a = w @ w + b * b + delta ** 2 * (first @ first + second @ second)
    assert est.n_updates_ == first.sum() + second.sum()
    assert_allclose(est.margin_bound_[0], np.sqrt(sq_a) / est.n_updates_,
                    rtol=1e-12)


def test_running_norm_does_not_drift():
    X, y = make_stream(19, n=80, noise=0.1)
    est = PDM(store_dual=True, epsilon=0.005, extension=0.5, random_state=0).fit(X, y)
    assert est.n_updates_ > 10_000
    counts = np.abs(est.dual_coef_[0])
    w, b = est.coef_[0], est.intercept_[0]
    exact = w @ w + b * b + 0.25 * counts @ counts
    assert_allclose(_internal(est, "_scalars")[0, 1], exact, rtol=1e-10)


def test_epsilon_schedule():
    assert epsilon_schedule(0.01, 8.0) == [0.5, 0.0625, 0.01]
    assert epsilon_schedule(0.01, None) == [0.01]
    assert epsilon_schedule(0.7, 8.0) == [0.7]
    s = epsilon_schedule(0.001, 2.0)
    assert s[0] == 0.5 and s[-1] == 0.001 and all(np.diff(s) < 0)


# ----------------------------------------------------------------- results
@pytest.mark.parametrize("cls, params", [
    (PDM, dict(epsilon=0.05, extension=0.5, augmentation=2.0)),
    (PDM, dict(epsilon=0.05, successive=8.0, extension=None)),
    (PFM, dict(beta=0.02, extension=1.0)),
])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_margin_recomputed_from_public_attributes(cls, params, sparse):
    extended = params.get("extension") is not None
    X, y = make_stream(7, n=60, noise=0.1 if extended else 0.0)
    est = cls(random_state=0, store_dual=True, **params).fit(_fmt(X, sparse), y)
    assert est.converged_.all()
    rho = params.get("augmentation", 1.0)
    delta = params["extension"] if extended else 0.0
    w, c0 = est.coef_[0], est.intercept_[0]
    dual = est.dual_coef_[0]
    assert_allclose(dual @ X[est.support_], w, rtol=1e-9, atol=1e-9)
    assert_allclose(rho ** 2 * dual.sum(), c0, rtol=1e-9, atol=1e-9)
    counts = np.zeros(X.shape[0])
    counts[est.support_] = np.abs(dual)
    ay = y * (X @ w + c0) + delta ** 2 * counts
    sq_a = w @ w + (c0 / rho) ** 2 + delta ** 2 * counts @ counts
    assert_allclose(est.directional_margin_[0], ay.min() / np.sqrt(sq_a), rtol=1e-9)
    assert_allclose(est.geometric_margin_[0],
                    ay.min() / np.sqrt(sq_a - (c0 / rho) ** 2), rtol=1e-9)
    assert est.n_updates_ == np.abs(dual).sum()
    assert_allclose(est.margin_bound_[0], np.sqrt(sq_a) / est.n_updates_,
                    rtol=1e-9)
    # decision_function is a·[x, ρ]
    assert_allclose(est.decision_function(_fmt(X, sparse)), X @ w + c0,
                    rtol=1e-9, atol=1e-9)
    # materialised patterns agree
    Y = extended_patterns(X, y, rho, params.get("extension"))
    a = np.concatenate([w, [c0 / rho], delta * y * counts]
                       if extended else [w, [c0 / rho]])
    assert_allclose(directional_margin(a, Y), est.directional_margin_[0], rtol=1e-9)


def test_converged_pdm_certifies_its_accuracy():
    X, y = make_stream(8, n=80)
    for eps in (0.3, 0.1, 0.02):
        est = PDM(store_dual=True, extension=None, epsilon=eps, random_state=1).fit(X, y)
        assert est.converged_[0]
        # every pattern violates (8): γ'_d > (1-ε)‖a‖/t, so Eq. (5) gives < ε
        assert est.margin_fraction_[0] > 1 - eps
        assert est.accuracy_estimate_[0] < eps
        assert est.score(X, y) == 1.0


def test_dense_and_csr_agree_with_shuffling():
    X, y = make_stream(9, n=70, noise=0.1)
    a = PDM(store_dual=True, extension=1.0, random_state=3).fit(X, y)
    b = PDM(store_dual=True, extension=1.0, random_state=3).fit(sp.csr_matrix(X), y)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_allclose(a.coef_, b.coef_, rtol=RTOL)
    assert a.n_iter_ == b.n_iter_


def test_determinism_and_seed_dependence():
    X, y = make_stream(10, n=70)
    fits = [PDM(store_dual=True, extension=None, epsilon=0.05, random_state=s).fit(X, y) for s in (0, 0, 1)]
    assert_array_equal(fits[0].coef_, fits[1].coef_)
    assert_array_equal(fits[0].dual_coef_, fits[1].dual_coef_)
    assert fits[0].n_updates_ == fits[1].n_updates_
    assert not np.array_equal(fits[0].dual_coef_, fits[2].dual_coef_) or \
        not np.array_equal(fits[0].coef_, fits[2].coef_)


def test_refit_resets_state():
    X, y = make_stream(11)
    est = PDM(store_dual=True, extension=None, epsilon=0.1, random_state=0)
    first = est.fit(X, y).coef_.copy()
    est.partial_fit(X, y)
    assert_array_equal(est.fit(X, y).coef_, first)


def test_inseparable_without_extension_warns_and_stops():
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [2.0, 0.5]])
    y = np.array([0, 1, 0, 1])  # a duplicated point with both labels
    with pytest.warns(ConvergenceWarning, match="extension"):
        est = PDM(store_dual=True, extension=None, max_iter=5, random_state=0).fit(X, y)
    assert est.n_iter_ == 5 and not est.converged_[0]
    assert est.directional_margin_[0] <= 0
    # the extension makes it separable
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = PDM(store_dual=True, extension=1.0, random_state=0).fit(X, y)
    assert est.converged_[0] and est.directional_margin_[0] > 0


def test_pfm_beta_zero_is_augmented_rosenblatt():
    X, y = make_stream(12)
    est = PFM(store_dual=True, extension=None, beta=0.0, shuffle=False, active_sets=False,
              multiple_updates=False).fit(X, y)
    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    w = np.zeros(Xa.shape[1])
    t = 0
    while True:
        changed = False
        for i in range(Xa.shape[0]):
            if y[i] * (w @ Xa[i]) <= 0:
                w += y[i] * Xa[i]
                t += 1
                changed = True
        if not changed:
            break
    assert est.n_updates_ == t
    assert_allclose(np.append(est.coef_[0], est.intercept_[0]), w, rtol=RTOL,
                    atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_pdm_epsilon_one_is_pfm_beta_zero(sparse):
    # both conditions read a·y <= 0 (Eq. 8 at ε = 1, Eq. 7 at β = 0)
    X, y = make_stream(16, n=60)
    X = _fmt(X, sparse)
    a = PDM(store_dual=True, extension=None, epsilon=1.0, multiple_updates=False, random_state=4).fit(X, y)
    b = PFM(store_dual=True, extension=None, beta=0.0, multiple_updates=False, random_state=4).fit(X, y)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.coef_, b.coef_)
    assert a.n_iter_ == b.n_iter_ and a.n_active_passes_ == b.n_active_passes_


@pytest.mark.parametrize("rule, param", [(RULE_PDM, 0.01), (RULE_PDM, 0.3),
                                         (RULE_PDM, 0.8), (RULE_PFM, 0.0),
                                         (RULE_PFM, 0.05), (RULE_PFM, 0.4)])
def test_multiple_update_is_minimal_repetition(rule, param):
    """λ = [μ₊] + 1 equals presenting the pattern until it violates the rule."""
    rng = np.random.default_rng(17)
    checked = 0
    for _ in range(300):
        d = 4
        a = rng.standard_normal(d) * rng.uniform(0.1, 10)
        t = int(rng.integers(1, 200))
        y = rng.standard_normal(d)
        if rule == RULE_PDM:
            # a need not come from t updates for the algebra, only ‖a‖ > 0
            holds = lambda a, t: a @ y <= (1 - param) * (a @ a) / t  # noqa: E731
        else:
            holds = lambda a, t: a @ y <= param * np.sqrt(a @ a)  # noqa: E731
        if not holds(a, t):
            continue
        lam = n_multiple_updates(rule, param, float(a @ y), float(y @ y),
                                 float(a @ a), t)
        steps = 0
        b, s = a.copy(), t
        while holds(b, s) and steps < 10 ** 6:
            b, s, steps = b + y, s + 1, steps + 1
        # repeated presentation stops after `steps` updates; rounding may
        # move an exactly integral μ₊ by one
        assert abs(lam - steps) <= 1 if steps > 50 else lam == steps
        checked += 1
    assert checked > 50


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("params", [
    dict(epsilon=0.0), dict(epsilon=1.5), dict(successive=1.0),
    dict(extension=0.0), dict(augmentation=-1.0), dict(max_iter=0),
    dict(active_sets="yes"),
])
def test_pdm_rejects_bad_parameters(params):
    X, y = make_stream(13)
    with pytest.raises(ValueError):
        PDM(store_dual=True, **params).fit(X, y)


@pytest.mark.parametrize("params", [dict(beta=-0.1), dict(extension=-1.0)])
def test_pfm_rejects_bad_parameters(params):
    X, y = make_stream(13)
    with pytest.raises(ValueError):
        PFM(store_dual=True, **params).fit(X, y)


def test_bad_data():
    X, y = make_stream(14)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PDM(store_dual=True).fit(Xn, y)
    with pytest.raises(ValueError, match="one class"):
        PDM(store_dual=True).fit(X, np.ones_like(y))
    with pytest.raises(ValueError, match="classes must be passed"):
        PDM(store_dual=True).partial_fit(X, y)
    est = PDM(store_dual=True, extension=None, epsilon=0.2).fit(X, y)
    with pytest.raises(ValueError):
        est.predict(X[:, :-1])
    # A later class is taken (tests/models/test_new_classes.py).
    est.partial_fit(X, np.where(y > 0, 5, -1))
    assert_array_equal(est.classes_, np.union1d(np.unique(y), [5]))


def test_overflow_is_reported():
    X, y = make_stream(15)
    with pytest.raises(ValueError, match="overflow"):
        PDM(store_dual=True).fit(X * 1e160, y)
