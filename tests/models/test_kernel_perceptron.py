"""``KernelPerceptron``: primal/dual equivalence, a brute-force dual reference.

STYLE habits 11-12 (lightning's ``KernelPRank(kernel="linear")`` ≡ ``PRank``):

* with ``kernel="linear"`` the dual estimator is ``Perceptron``: the same
  online mistakes and updates, predictions and decision values (up to the
  order of summation), for every final hypothesis, multiclass rule and
  margin/λ/α-bound setting (every pair of them, ``tests/_pairwise.py``),
  on dense and CSR input, with ``fit`` and with ``partial_fit`` (support
  vectors carried across calls);
* with the "linear", "poly" and "rbf" kernels it matches
  ``khardon_wachman.fit(..., kernel=...)`` (``tests/reference``), K&W
  Figure 2 in dual form written as a plain loop over an explicit Gram
  matrix, which also stores every hypothesis so that the voted prediction
  is checked against a brute-force vote: the same mistakes and updates per
  epoch, decision values, predictions, ``dual_coef_`` and ``intercept_``;
* the Gram-row cache changes nothing (bit for bit) whatever its size.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.metrics.pairwise import polynomial_kernel
from sklearn.utils._param_validation import InvalidParameterError

from perceptrons import KernelPerceptron, Perceptron
from tests._states import final_hypothesis
from tests._pairwise import all_pairs, corners_of, parametrize
from tests.reference import khardon_wachman
from tests.reference.streams import make_stream

HYPOTHESES = ["last", "longest", "voted", "averaged"]
MULTICLASS = ["ovr", "prototype"]


# ----------------------------------------------------------------- data
def make_data(n_classes, seed, n=60, d=5, exact=False, zero_row=True):
    """(X, y, X_test): noisy linear classes with an all-zero row (unless
    ``zero_row=False``) and a duplicate."""
    s = make_stream(seed, n_classes=n_classes, n=n, d=d,
                    values="integer" if exact else "float",
                    sparsity=0.0 if exact else 0.25,
                    zero_rows=1 if zero_row else 0, nonzero_rows=not zero_row,
                    duplicate=True, noise=0.1,
                    labels=[-1, 1] if n_classes == 2 else [0, 3, 7],
                    n_test=20)
    return s.X, s.y, s.X_test


SETTINGS = {
    "plain": {},
    "margin-lam": {"margin": 1.5, "lam": 0.4},
    "alpha": {"alpha_bound": 2},
    "all": {"margin": 0.8, "lam": 0.2, "alpha_bound": 3},
}


def storages(X):
    return [("dense", X), ("csr", sp.csr_matrix(X))]


def assert_same_model(dual, primal, X_test, scale):
    assert dual.n_mistakes_ == primal.n_mistakes_
    assert dual.n_updates_ == primal.n_updates_
    assert_array_equal(dual.mistakes_per_epoch_, primal.mistakes_per_epoch_)
    assert_array_equal(dual.updates_per_epoch_, primal.updates_per_epoch_)
    assert dual.t_ == primal.t_ and dual.n_iter_ == primal.n_iter_
    assert dual.theta_init_ == primal.theta_init_
    assert dual.threshold_step_ == primal.threshold_step_
    assert_array_equal(dual.predict(X_test), primal.predict(X_test))
    assert_allclose(dual.decision_function(X_test),
                    primal.decision_function(X_test),
                    rtol=1e-8, atol=1e-8 * scale)
    assert_allclose(final_hypothesis(dual)[0], final_hypothesis(primal)[0], rtol=1e-8, atol=1e-8 * scale)
    assert_allclose(final_hypothesis(dual)[1], final_hypothesis(primal)[1], rtol=1e-8,
                    atol=1e-8 * scale)


# ------------------------------------------------- linear kernel ≡ primal
# Hypothesis × setting × multiclass × classes × storage: every pair (the
# product has 128 rows), all-off and all-on.
LINEAR_FACTORS = {"hypothesis": HYPOTHESES, "setting": list(SETTINGS),
                  "multiclass": MULTICLASS, "n_classes": [2, 3],
                  "storage": ["dense", "csr"]}


@parametrize(all_pairs(LINEAR_FACTORS, corners_of(LINEAR_FACTORS)))
def test_linear_kernel_is_perceptron(hypothesis, setting, multiclass,
                                     n_classes, storage):
    X, y, X_test = make_data(n_classes, seed=n_classes)
    if storage == "csr":
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    params = dict(hypothesis=hypothesis, multiclass=multiclass, max_iter=6,
                  shuffle=False, **SETTINGS[setting])
    dual = KernelPerceptron(kernel="linear", **params).fit(X, y)
    primal = Perceptron(**params).fit(X, y)
    assert_same_model(dual, primal, X_test, scale=dual.theta_init_)


@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_linear_kernel_is_perceptron_with_exact_ties(hypothesis, multiclass):
    """Integer data, η = 1: scores are exact and ties (ŷ = 0) really occur."""
    X, y, X_test = make_data(3, seed=11, exact=True)
    params = dict(hypothesis=hypothesis, multiclass=multiclass, max_iter=5,
                  shuffle=False, eta=1.0, theta_init=2.0, threshold_step=1.0,
                  margin=1.0, lam=0.5, alpha_bound=3)
    dual = KernelPerceptron(kernel="linear", **params).fit(X, y)
    primal = Perceptron(**params).fit(X, y)
    assert_same_model(dual, primal, X_test, scale=10.0)
    if hypothesis != "averaged":  # the average divides by T: not exact
        assert_array_equal(dual.decision_function(X_test),
                           primal.decision_function(X_test))


@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_linear_kernel_shuffled_is_perceptron(hypothesis, multiclass):
    X, y, X_test = make_data(3, seed=5)
    params = dict(hypothesis=hypothesis, multiclass=multiclass, max_iter=4,
                  shuffle=True, random_state=3, margin=0.5)
    dual = KernelPerceptron(kernel="linear", **params).fit(X, y)
    primal = Perceptron(**params).fit(X, y)
    assert_same_model(dual, primal, X_test, scale=dual.theta_init_)


PARTIAL_FACTORS = {"hypothesis": HYPOTHESES, "multiclass": MULTICLASS,
                   "n_classes": [2, 3], "storage": ["dense", "csr"]}


@parametrize(all_pairs(PARTIAL_FACTORS, corners_of(PARTIAL_FACTORS)))
def test_linear_kernel_partial_fit_is_perceptron(hypothesis, multiclass,
                                                 n_classes, storage):
    """Support vectors and coefficients of earlier calls carry over."""
    X, y, X_test = make_data(n_classes, seed=20 + n_classes, n=90)
    if storage == "csr":
        X = sp.csr_matrix(X)
    params = dict(hypothesis=hypothesis, multiclass=multiclass,
                  margin=0.7, lam=0.3, alpha_bound=2)
    dual = KernelPerceptron(kernel="linear", **params)
    primal = Perceptron(**params)
    classes = np.unique(y)
    for lo, hi in [(0, 25), (25, 60), (60, 90), (0, 90), (10, 40)]:
        dual.partial_fit(X[lo:hi], y[lo:hi], classes=classes)
        primal.partial_fit(X[lo:hi], y[lo:hi], classes=classes)
        assert_same_model(dual, primal, X_test, scale=dual.theta_init_)
    # support_ indexes the concatenation of all batches
    X_all = sp.vstack([X[0:25], X[25:60], X[60:90], X[0:90], X[10:40]]) \
        if storage == "csr" else np.vstack(
            [X[0:25], X[25:60], X[60:90], X[0:90], X[10:40]])
    sv = dual.support_vectors_
    expected = X_all[dual.support_]
    if storage == "csr":
        assert sp.issparse(sv) and sv.format == "csr"
        sv, expected = sv.toarray(), expected.toarray()
    assert_array_equal(sv, expected)


# ------------------------------------------------- brute-force dual reference
# Kernel × classes × hypothesis × multiclass × setting: every pair (the
# product has 96 rows), all-off and all-on for each kernel.
DUAL_FACTORS = {"kernel": ["linear", "poly", "rbf"], "n_classes": [2, 3],
                "hypothesis": HYPOTHESES, "multiclass": MULTICLASS,
                "setting": ["plain", "all"]}


@pytest.mark.reference
@parametrize(all_pairs(DUAL_FACTORS, corners_of(DUAL_FACTORS, by="kernel")))
def test_matches_dual_reference(kernel, n_classes, hypothesis, multiclass,
                                setting):
    """K&W Figure 2 in dual form over an explicit Gram matrix
    (``khardon_wachman.fit`` with a kernel), which stores every hypothesis,
    so that the voted prediction is a brute-force vote."""
    # No zero row here: its kernel values are all coef0^degree (or 1), so
    # class scores can tie exactly in exact arithmetic, and the summation
    # order then decides the tie differently in the reference.
    X, y, X_test = make_data(n_classes, seed=40 + n_classes, n=36, d=4,
                             zero_row=False)
    params = dict(kernel=kernel, gamma=0.5, hypothesis=hypothesis,
                  multiclass=multiclass, max_iter=4, **SETTINGS[setting])
    est = KernelPerceptron(shuffle=False, **params).fit(X, y)
    ref = khardon_wachman.fit(X, y, **params)
    assert_allclose(est.theta_init_, ref.theta_init, rtol=1e-12)
    assert est.n_mistakes_ == ref.n_mistakes
    assert est.n_updates_ == ref.n_updates
    assert_array_equal(est.mistakes_per_epoch_, ref.mistakes_per_epoch)
    assert_array_equal(est.updates_per_epoch_, ref.updates_per_epoch)
    expected = ref.decision_function(X_test)
    got = est.decision_function(X_test)
    if hypothesis == "voted":
        assert_array_equal(got, expected)  # vote totals are integers
    else:
        assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
        # The final hypothesis itself: its coefficients by support vector
        # (and none elsewhere), and its thresholds.
        assert_allclose(est.dual_coef_, ref.dual_coef[:, est.support_],
                        rtol=1e-9, atol=1e-12)
        assert not np.delete(ref.dual_coef, est.support_, axis=1).any()
        assert_allclose(final_hypothesis(est)[1], ref.intercept, rtol=1e-9,
                        atol=1e-12)
    assert_array_equal(est.predict(X_test), ref.predict(X_test))


@pytest.mark.parametrize("kernel", ["poly", "rbf"])
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_csr_equals_dense(kernel, hypothesis):
    X, y, X_test = make_data(3, seed=7)
    params = dict(kernel=kernel, hypothesis=hypothesis, max_iter=5,
                  random_state=0, margin=0.3, lam=0.2)
    dense = KernelPerceptron(**params).fit(X, y)
    csr = KernelPerceptron(**params).fit(sp.csr_matrix(X), y)
    assert dense.n_mistakes_ == csr.n_mistakes_
    assert dense.n_updates_ == csr.n_updates_
    assert_array_equal(dense.support_, csr.support_)
    assert_allclose(dense.dual_coef_, csr.dual_coef_, rtol=1e-10)
    for X_pred in (X_test, sp.csr_matrix(X_test)):
        assert_allclose(csr.decision_function(X_pred),
                        dense.decision_function(X_test), rtol=1e-9,
                        atol=1e-9)


# ----------------------------------------------------------------- cache
@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_cache_size_changes_nothing(hypothesis, multiclass):
    X, y, X_test = make_data(3, seed=8, n=80)
    n_bytes = 8 * X.shape[0]
    fitted = []
    for cache_size in [0.0, 7 * n_bytes / 2 ** 20, 200]:  # none, 7 rows, all
        for Xs in (X, sp.csr_matrix(X)):
            est = KernelPerceptron(kernel="rbf", hypothesis=hypothesis,
                                   multiclass=multiclass, max_iter=4,
                                   random_state=1, cache_size=cache_size)
            fitted.append((est.fit(Xs, y), Xs is X))
    for est, dense in fitted[1:]:
        ref = fitted[0][0] if dense else fitted[1][0]
        assert est.n_mistakes_ == ref.n_mistakes_
        assert_array_equal(est.support_, ref.support_)
        assert_array_equal(est.dual_coef_, ref.dual_coef_)
        assert_array_equal(final_hypothesis(est)[1], final_hypothesis(ref)[1])
        assert_array_equal(est.decision_function(X_test),
                           ref.decision_function(X_test))


# ----------------------------------------------------------- attributes
@pytest.mark.parametrize("multiclass", MULTICLASS)
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_dual_attributes(hypothesis, multiclass):
    X, y, X_test = make_data(3, seed=9)
    est = KernelPerceptron(kernel="poly", gamma=0.3, hypothesis=hypothesis,
                           multiclass=multiclass, random_state=0).fit(X, y)
    n_sv = est.support_.shape[0]
    assert est.dual_coef_.shape == (3, n_sv)
    assert_array_equal(est.support_vectors_, X[est.support_])
    assert np.all(np.diff(est.support_) > 0)
    assert est.gamma_ == 0.3
    if hypothesis == "voted":
        assert n_sv > 0  # every row that ever caused an update
    else:
        assert np.all(np.any(est.dual_coef_ != 0, axis=0))
        K = polynomial_kernel(X_test, est.support_vectors_, degree=3,
                              gamma=0.3, coef0=1.0)
        assert_allclose(est.decision_function(X_test),
                        K @ est.dual_coef_.T + final_hypothesis(est)[1], rtol=1e-10)
    if hypothesis == "last" and multiclass == "ovr":
        # c = η y α: multiples of η with the sign of the one-vs-rest label
        alpha = est.dual_coef_ / est.eta
        assert_allclose(alpha, np.round(alpha), atol=1e-9)
        labels = np.where(y[est.support_][None, :] == est.classes_[:, None],
                          1.0, -1.0)
        nz = est.dual_coef_ != 0
        assert np.all(np.sign(est.dual_coef_[nz]) == labels[nz])


def test_binary_shapes_and_gamma_default():
    X, y, X_test = make_data(2, seed=1)
    est = KernelPerceptron(kernel="rbf", random_state=0).fit(X, y)
    assert est.dual_coef_.shape == (1, est.support_.shape[0])
    assert final_hypothesis(est)[1].shape == (1,)
    assert est.decision_function(X_test).shape == (X_test.shape[0],)
    assert est.gamma_ == 1.0 / X.shape[1]
    assert est.theta_init_ == 1.0  # average k(x, x) of the rbf kernel
    # Only a linear kernel has primal weights.
    assert not hasattr(est, "coef_")


def test_learns_xor_which_no_linear_model_can():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5, dtype=float)
    y = np.array([0, 1, 1, 0] * 5)
    est = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, eta=1.0,
                           max_iter=50, shuffle=False).fit(X, y)
    assert est.score(X, y) == 1.0
    assert est.mistakes_per_epoch_[-1] == 0
    assert Perceptron(max_iter=50, shuffle=False).fit(X, y).score(X, y) < 1


def test_deterministic_pickle_and_clone():
    X, y, X_test = make_data(3, seed=2)
    est = KernelPerceptron(kernel="rbf", hypothesis="voted", random_state=4)
    a = est.fit(X, y).decision_function(X_test)
    b = clone(est).fit(X, y).decision_function(X_test)
    assert_array_equal(a, b)
    restored = pickle.loads(pickle.dumps(est))
    assert_array_equal(restored.decision_function(X_test), a)
    restored.partial_fit(X[:10], y[:10])
    est.partial_fit(X[:10], y[:10])
    assert_array_equal(restored.decision_function(X_test),
                       est.decision_function(X_test))


def test_fit_resets_partial_fit_state():
    X, y, X_test = make_data(3, seed=3)
    est = KernelPerceptron(max_iter=3, random_state=0)
    est.partial_fit(X, y, classes=np.unique(y))
    est.fit(X, y)
    fresh = KernelPerceptron(max_iter=3, random_state=0).fit(X, y)
    assert_array_equal(est.support_, fresh.support_)
    assert_array_equal(est.decision_function(X_test),
                       fresh.decision_function(X_test))


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize("params", [
    {"kernel": "sigmoid"}, {"kernel": None}, {"degree": 0}, {"degree": 2.5},
    {"gamma": 0.0}, {"gamma": -1.0}, {"gamma": "scale"}, {"coef0": -1.0},
    {"cache_size": -1}, {"hypothesis": "best"}, {"multiclass": "ovo"},
    {"eta": 0.0}, {"alpha_bound": 0},
])
def test_bad_parameters_rejected(params):
    X, y, _ = make_data(2, seed=0)
    with pytest.raises(InvalidParameterError):
        KernelPerceptron(**params).fit(X, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_X_rejected(bad):
    X, y, _ = make_data(2, seed=0)
    X_bad = X.copy()
    X_bad[2, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        KernelPerceptron().fit(X_bad, y)
    est = KernelPerceptron().fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        est.predict(X_bad)
    Xs = sp.csr_matrix(X)
    Xs.data[0] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        KernelPerceptron().fit(Xs, y)


def test_other_bad_input():
    X, y, _ = make_data(3, seed=0)
    with pytest.raises(ValueError, match="one class"):
        KernelPerceptron().fit(X, np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match="classes must be passed"):
        KernelPerceptron().partial_fit(X, y)
    est = KernelPerceptron().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :-1])
    est.partial_fit(X[:3], np.array([99, 99, 99]))  # a class later
    assert est.classes_[-1] == 99


def test_overflow_fails_loudly():
    X, y, _ = make_data(2, seed=0)
    with pytest.raises(ValueError, match="overflow"):
        KernelPerceptron(kernel="poly", degree=40, gamma=1e3).fit(X * 1e3, y)
    with pytest.raises(ValueError, match="overflow"):
        KernelPerceptron(kernel="poly", degree=40, gamma=1e3, theta_init=1.0,
                         threshold_step=1.0).fit(X * 1e3, y)


@pytest.mark.parametrize("params", [
    {"kernel": "rbf", "hypothesis": "voted"},
    {"kernel": "poly", "degree": 2, "hypothesis": "longest", "lam": 0.5},
    {"kernel": "linear", "hypothesis": "averaged", "multiclass": "prototype"},
])
def test_perceptron_with_a_kernel_is_kernel_perceptron(params):
    """One class per algorithm: Perceptron(kernel=...) is the dual form and
    KernelPerceptron its alias, bit for bit."""
    from perceptrons import Perceptron

    X, y, X_test = make_data(3, seed=4)
    a = Perceptron(random_state=0, **params).fit(X, y)
    b = KernelPerceptron(random_state=0, **params).fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.decision_function(X_test),
                                  b.decision_function(X_test))
    # A refit without a kernel keeps nothing of the dual form.
    a.set_params(kernel=None).fit(X, y)
    assert not hasattr(a, "dual_coef_") and final_hypothesis(a)[0].shape[1] == X.shape[1]
