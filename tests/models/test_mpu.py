"""``MPU`` against the slow reference, its guarantees, and LinearSVC.

With ``shuffle=False`` the estimator must reproduce the reference of
``tests/reference/mpu.py`` (patterns materialised in the extended space,
``a·y_k`` recomputed at every step) on dense and CSR input: the same steps
(learning and unlearning), epochs and active passes, the same dual variables
I_k, and the same a up to rounding.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from perceptrons import MPU
from tests.reference import mpu as reference
from tests.reference.pdm import extended_patterns
from tests.reference.streams import make_stream as _make_stream
from tests.reference.streams import margin_stream as make_stream

RTOL = 1e-9

CASES = {
    # name: (estimator kwargs, data kwargs)
    "separable-plain": ({"epsilon": 0.5, "extension": None, "gap": 1.5,
                         "active_sets": False, "multiple_updates": False},
                        {}),
    "separable-active": ({"epsilon": 0.05, "extension": None}, {}),
    "extended-noisy": ({"epsilon": 0.02}, {"noise": 0.15}),
    "extended-run-out": ({"epsilon": 0.01, "certified_stop": False,
                          "extension": 0.5, "intercept_scaling": 2.0},
                         {"noise": 0.1, "n": 60}),
    "no-intercept": ({"epsilon": 0.1, "fit_intercept": False,
                      "gap": 1.5}, {"noise": 0.05}),
    "soft-margin": ({"C": 0.5, "epsilon": 0.05}, {"noise": 0.15}),
    "soft-margin-plain": ({"C": 2.0, "epsilon": 0.1, "active_sets": False,
                           "certified_stop": False}, {"noise": 0.1}),
}


def _check_agrees(clf, ref):
    assert clf.n_updates_ == ref.n_updates
    assert clf.n_mistakes_ == ref.n_mistakes
    assert_array_equal(clf.n_unlearned_per_problem_,
                       [r["unlearned"] for r in ref.runs])
    assert_allclose(clf.coef_, ref.coef, rtol=RTOL, atol=1e-9)
    assert_allclose(clf.intercept_, ref.intercept, rtol=RTOL, atol=1e-9)
    assert_allclose(clf.directional_margin_, ref.directional_margin,
                    rtol=1e-8, atol=1e-12)
    assert_array_equal(clf.dual_coef_, ref.dual_coef[:, clf.support_])
    assert not np.delete(ref.dual_coef, clf.support_, axis=1).any()
    assert_allclose(clf.threshold_, [r["threshold"] for r in ref.runs],
                    rtol=1e-12)


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_reference(case, seed, sparse):
    params, data = CASES[case]
    X, y = make_stream(seed, **data)
    clf = MPU(store_dual=True, shuffle=False, **params).fit(
        sp.csr_matrix(X) if sparse else X, y)
    ref = reference.fit(X, y, **params)
    assert ref.converged[0] and clf.converged_[0]
    _check_agrees(clf, ref)
    assert clf.n_iter_ == ref.n_iter
    assert clf.n_active_passes_ == ref.n_active_passes
    if params.get("C") is None:
        assert_allclose(clf.margin_bound_, ref.margin_bound, rtol=1e-8)
    assert_allclose(clf.accuracy_estimate_,
                    [r["certificate"] for r in ref.runs], rtol=1e-6,
                    atol=1e-9)


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_sample_weights_match_reference(sparse):
    X, y = make_stream(4, noise=0.1)
    w = np.random.RandomState(0).choice([0.0, 0.5, 1.0, 3.0], size=len(y))
    for params in ({"epsilon": 0.05}, {"C": 1.0, "epsilon": 0.05}):
        clf = MPU(store_dual=True, shuffle=False, **params).fit(
            sp.csr_matrix(X) if sparse else X, y, sample_weight=w)
        ref = reference.fit(X, y, sample_weight=w, **params)
        assert clf.n_updates_ == ref.n_updates
        assert_allclose(clf.coef_, ref.coef, rtol=RTOL, atol=1e-9)
        assert_allclose(clf.intercept_, ref.intercept, rtol=RTOL, atol=1e-9)


@pytest.mark.reference
def test_multiclass_is_one_vs_rest_of_binary_runs():
    X, y, _, _, _ = _make_stream(5, n_classes=3, n=45, d=4,
                                 labels=[7, 17, 27])
    params = dict(epsilon=0.05)
    clf = MPU(store_dual=True, shuffle=False, **params).fit(X, y)
    ref = reference.fit(X, y, **params)
    assert clf.coef_.shape == (3, 4)
    assert_array_equal(clf.classes_, ref.classes)
    assert_array_equal(clf.n_updates_per_problem_, ref.n_updates_per_problem)
    assert_array_equal(clf.n_iter_per_problem_, ref.n_iter_per_problem)
    _check_agrees(clf, ref)


@pytest.mark.reference
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_partial_fit_is_one_plain_pass(sparse):
    X, y = make_stream(3, noise=0.1)
    clf = MPU(store_dual=True, epsilon=0.05).partial_fit(
        sp.csr_matrix(X) if sparse else X, y, classes=[-1, 1])
    ref = reference.fit(X, y, epsilon=0.05, active_sets=False,
                        multiple_updates=False, certified_stop=False,
                        max_iter=1)
    _check_agrees(clf, ref)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("epsilon", [0.3, 0.1, 0.03])
def test_theorem_on_separable_streams(seed, epsilon):
    """Margin guarantee γ'_d ≥ b/‖a‖ ≥ (1-ε)γ_d at convergence, γ_d ≤
    ‖a‖/N, and the bounds on the learning (N) and unlearning (t_-) steps."""
    X, y = make_stream(seed, n=50, d=4)
    rho = 1.0
    clf = MPU(epsilon=epsilon, extension=None, certified_stop=False,
              random_state=seed).fit(X, y)
    assert clf.converged_[0]
    labels = np.where(y == 1, 1.0, -1.0)
    Y = extended_patterns(X, labels, rho, None)
    svc = LinearSVC(C=1e6, loss="hinge", fit_intercept=False, tol=1e-12,
                    max_iter=10 ** 6, dual=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # The unreflected augmented patterns [x, ρ] with their labels.
        svc.fit(Y * labels[:, None], labels)
    u = svc.coef_[0]
    gamma = float(np.min(Y @ u) / np.linalg.norm(u))  # <= γ_d
    assert gamma > 0
    b, gap = clf.threshold_[0], clf.gap_[0]
    r_sq = float(np.max(np.einsum("ij,ij->i", Y, Y)))
    assert_allclose(gap, 3.0 * r_sq)
    a = np.r_[clf.coef_[0], clf.intercept_[0] / rho]
    norm = np.linalg.norm(a)
    margin = clf.directional_margin_[0]
    assert margin >= b / norm * (1 - 1e-12)
    assert margin >= (1 - epsilon) * gamma * (1 - 1e-9)
    assert clf.margin_bound_[0] >= gamma * (1 - 1e-9)
    net = norm / clf.margin_bound_[0]
    unlearned = clf.n_unlearned_per_problem_[0]
    assert_allclose(clf.n_updates_, net + 2 * unlearned)
    assert net <= (2 * b + r_sq) / gamma ** 2
    assert unlearned <= (2 * b + r_sq) ** 2 / (8 * gamma ** 2 * (gap - r_sq))


def _hinge_primal(w_aug, Y, C, weights=None):
    s = np.ones(Y.shape[0]) if weights is None else weights
    return 0.5 * float(w_aug @ w_aug) + C * float(
        np.sum(s * np.maximum(0.0, 1.0 - Y @ w_aug)))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [0.1, 1.0])
def test_soft_margin_target_is_linearsvc_hinge(seed, C):
    """The 1-norm target: the primal objective at w = a/b is within the
    certified accuracy of LinearSVC's (hinge loss, same C and ρ)."""
    X, y = make_stream(seed, n=80, d=5, noise=0.15)
    epsilon = 0.01
    clf = MPU(C=C, epsilon=epsilon, random_state=seed).fit(X, y)
    assert clf.converged_[0]
    svc = LinearSVC(C=C, loss="hinge", intercept_scaling=1.0, tol=1e-10,
                    max_iter=10 ** 6, dual=True).fit(X, y)
    labels = np.where(y == 1, 1.0, -1.0)
    Y = extended_patterns(X, labels, 1.0, None)
    b = clf.threshold_[0]
    w_mpu = np.r_[clf.coef_[0], clf.intercept_[0]] / b
    w_svc = np.r_[svc.coef_[0], svc.intercept_[0]]
    p_mpu = _hinge_primal(w_mpu, Y, C)
    p_svc = _hinge_primal(w_svc, Y, C)
    gap = clf.accuracy_estimate_[0]
    assert gap <= epsilon
    # P_mpu - P* <= P_mpu - D_mpu = gap · P_mpu, and P* <= P_svc.
    assert p_mpu * (1 - gap) <= p_svc * (1 + 1e-6)
    assert p_svc <= p_mpu * (1 + 1e-6)
    assert np.mean(clf.predict(X) == svc.predict(X)) >= 0.95


def test_soft_margin_converged_gap_bound():
    """Without the certified stop, the duality gap at convergence is within
    (δb/b) Σα + (1/b) Σ_boxed (1 - w·y)⁺ (Notes)."""
    X, y = make_stream(7, n=60, d=4, noise=0.15)
    C, eps = 1.0, 0.05
    clf = MPU(C=C, epsilon=eps, certified_stop=False, store_dual=True,
              shuffle=False).fit(X, y)
    ref = reference.fit(X, y, C=C, epsilon=eps, certified_stop=False)
    run = ref.runs[0]
    b, gap = run["threshold"], run["gap"]
    Y = run["Y"]
    w = run["a"] / b
    alpha = run["counts"] / b
    primal = _hinge_primal(w, Y, C)
    dual = alpha.sum() - 0.5 * float(w @ w)
    boxed = run["counts"] + 1 > C * b
    bound = (gap / b) * alpha.sum() + np.sum(
        np.maximum(0.0, 1.0 - Y[boxed] @ w)) / b
    assert 0 <= primal - dual <= bound * (1 + 1e-9)
    assert_allclose(clf.accuracy_estimate_[0], (primal - dual) / primal,
                    rtol=1e-6)


def test_fit_intercept_false_is_through_the_origin():
    X, y = make_stream(2, noise=0.05)
    clf = MPU(fit_intercept=False, epsilon=0.1, random_state=0).fit(X, y)
    assert_array_equal(clf.intercept_, 0.0)
    assert clf.converged_[0]


def test_extension_auto():
    X, y = make_stream(2, noise=0.1)
    assert MPU(random_state=0).fit(X, y).state_.delta_sq == 1.0
    assert MPU(C=1.0, random_state=0).fit(X, y).state_.delta_sq == 0.0


def test_certified_stop_stops_no_later():
    X, y = make_stream(1, n=60, noise=0.1)
    stop = MPU(random_state=0).fit(X, y)
    full = MPU(random_state=0, certified_stop=False).fit(X, y)
    assert stop.n_iter_ <= full.n_iter_
    assert stop.accuracy_estimate_[0] <= 0.01
    assert full.accuracy_estimate_[0] <= 0.01


def test_determinism():
    X, y = make_stream(1, n=60, noise=0.1)
    a = MPU(random_state=3).fit(X, y)
    b = MPU(random_state=3).fit(sp.csr_matrix(X), y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    assert a.n_updates_ == b.n_updates_


@pytest.mark.parametrize("params", [
    {"epsilon": 0.0}, {"epsilon": 1.0}, {"gap": 1.0}, {"gap": 0.5},
    {"C": 0.0}, {"C": -1.0}, {"intercept_scaling": 0.0},
    {"extension": 0.0}, {"extension": "yes"}, {"fit_intercept": 1.5},
    {"certified_stop": "no"},
])
def test_rejects_bad_parameters(params):
    X, y = make_stream(0)
    with pytest.raises(ValueError):
        MPU(**params).fit(X, y)


def test_hard_margin_refuses_weights():
    X, y = make_stream(0)
    with pytest.raises(ValueError, match="extension"):
        MPU(extension=None).fit(X, y, sample_weight=np.full(len(y), 2.0))


@pytest.mark.parametrize("seed", range(4))
def test_active_set_reading_only_reorders(seed):
    """The active sets (a reading of the PDM paper's "c̄ = 1.01, Nep1 =
    Nep2 = 5") only change the order of presentation: without them (the
    alternative, plain cycling) the run reaches the same guarantee, and the
    two margins lie within ε of each other."""
    X, y = make_stream(seed, n=60, d=4)
    eps = 0.1
    runs = [MPU(epsilon=eps, extension=None, active_sets=active,
                certified_stop=False, max_iter=20000,
                random_state=seed).fit(X, y)
            for active in (True, False)]
    for clf in runs:
        assert clf.converged_[0]
        assert clf.margin_fraction_[0] >= 1 - eps - 1e-9
    m_active, m_plain = (clf.directional_margin_[0] for clf in runs)
    assert abs(m_active - m_plain) <= eps * max(m_active, m_plain)
    assert runs[0].n_active_passes_ > 0 and runs[1].n_active_passes_ == 0
