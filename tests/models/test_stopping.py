"""Stopping rules (``tol``, ``n_iter_no_change``, ``early_stopping``,
``validation_fraction``), the quiet-pass stop, and ``warm_start``."""

import copy
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning

from perceptrons import KernelPerceptron, Perceptron
from perceptrons.datasets import make_separable
from perceptrons.models._stopping import NoImprovement, validation_split
from tests import _registry as reg
from tests._states import assert_same_state

#: The estimators with stopping rules (a ``tol``).
STOPPING = [cls for cls in reg.estimator_classes()
            if reg.has_param("tol")(cls)]


def _quiet_pass_cases():
    for cls in STOPPING:
        mark = reg.xfail(cls(), "test_a_quiet_pass_ends_the_last_hypothesis")
        yield pytest.param(cls, id=cls.__name__,
                           marks=() if mark is None else mark)


def _noisy(n=600, n_classes=2, seed=0):
    return make_classification(n_samples=n, n_features=10, n_informative=5,
                               n_classes=n_classes, flip_y=0.1,
                               random_state=seed)


def test_no_improvement_is_scikit_learns_rule():
    rule = NoImprovement(tol=0.1, n_iter_no_change=2)
    # 1.0 sets the best; 0.95 is not 0.1 better (1); 0.5 is (reset);
    # 0.45 and 0.41 are not (1, 2: stop).
    assert [rule.stops(v) for v in (1.0, 0.95, 0.5, 0.45, 0.41)] == [
        False, False, False, False, True]


@reg.mark(rule=reg.has_param("tol"))
@pytest.mark.parametrize("cls", list(_quiet_pass_cases()))
def test_a_quiet_pass_ends_the_last_hypothesis(cls):
    """On separable data, with a tol, the last hypothesis stops at its first
    pass without an update, with the model a longer run would have (it
    cannot change); without one it runs every pass."""
    X, y = make_separable(n_samples=300, n_features=8, margin=0.2,
                          random_state=0)[:2]
    params = {"hypothesis": "last"} if "hypothesis" in cls().get_params() \
        else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = cls(max_iter=200, random_state=0, tol=0.0,
                  n_iter_no_change=200, **params).fit(X, y)
        full = cls(max_iter=est.n_iter_ + 3, random_state=0, **params).fit(
            X, y)
    assert est.n_iter_ < 200
    assert full.n_iter_ == est.n_iter_ + 3
    assert_array_equal(full.decision_function(X), est.decision_function(X))
    assert est.updates_per_epoch_[-1] == 0
    assert np.all(est.updates_per_epoch_[:-1] > 0)
    assert est.score(X, y) == 1.0


def test_averaged_runs_on_without_tol_and_stops_with_it():
    X, y = make_separable(n_samples=300, n_features=8, margin=0.2,
                          random_state=0)[:2]
    plain = Perceptron(max_iter=40, random_state=0).fit(X, y)
    assert plain.n_iter_ == 40  # the average goes on moving
    stopped = Perceptron(max_iter=40, tol=1e-3, n_iter_no_change=3,
                         random_state=0).fit(X, y)
    assert stopped.n_iter_ < 40
    # The passes it made are the first passes of the long run, bit for bit.
    short = Perceptron(max_iter=stopped.n_iter_, random_state=0).fit(X, y)
    assert_same_state(short.state_, stopped.state_)


def test_tol_stops_on_the_training_mistakes():
    X, y = _noisy()
    est = Perceptron(max_iter=100, tol=1e-3, n_iter_no_change=5,
                     random_state=0).fit(X, y)
    assert est.n_iter_ < 100
    rates = est.mistakes_per_epoch_ / X.shape[0]
    best_before = np.minimum.accumulate(rates)
    # The last n_iter_no_change passes did not beat the best by tol ...
    tail = rates[-5:]
    assert np.all(tail > best_before[-6] - 1e-3)
    # ... and it is a warning-free stop; max_iter reached warns once.
    with pytest.warns(ConvergenceWarning, match="raise max_iter") as record:
        Perceptron(max_iter=2, tol=1e-3, random_state=0).fit(X, y)
    assert len(record) == 1


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_early_stopping_trains_on_the_rest(sparse, n_classes):
    """The held-out rows are a stratified ``validation_fraction``; the model
    is the one trained on the other rows (θ_Init "auto", α counters of the
    λ-trick carried across the passes included), bit for bit."""
    X, y = _noisy(n_classes=n_classes)
    held = validation_split(np.searchsorted(np.unique(y), y),
                            np.zeros(0), 0.2, 7)
    assert held.sum() == 120
    for c in np.unique(y):
        assert abs((y[held] == c).mean() - (y == c).mean()) < 0.02
    convert = sp.csr_matrix if sparse else np.asarray
    params = dict(max_iter=6, lam=0.3, alpha_bound=2, random_state=7)
    early = Perceptron(early_stopping=True, validation_fraction=0.2,
                       **params).fit(convert(X), y)
    rest = Perceptron(**params).fit(convert(X[~held]), y[~held])
    assert early.n_iter_ == rest.n_iter_ == 6  # tol=None: every pass
    assert_same_state(early.state_, rest.state_)


def test_early_stopping_stops_on_the_validation_score():
    X, y = _noisy(n=1500)
    est = Perceptron(max_iter=200, tol=1e-3, early_stopping=True,
                     n_iter_no_change=3, random_state=0).fit(X, y)
    assert 3 <= est.n_iter_ < 200
    with pytest.raises(ValueError, match="validation_fraction"):
        Perceptron(early_stopping=True, validation_fraction=0.01).fit(
            X[:20], y[:20])


def test_kernel_early_stopping():
    X, y = _noisy(n=300)
    est = KernelPerceptron(kernel="rbf", max_iter=50, tol=1e-3,
                           early_stopping=True, n_iter_no_change=2,
                           random_state=0).fit(X, y)
    assert est.n_iter_ < 50
    assert est.score(X, y) > 0.8


# -------------------------------------------------------------- warm_start
@reg.mark()
@pytest.mark.parametrize("cls", reg.estimator_classes(), ids=reg.class_id)
def test_warm_start_continues_the_state(cls):
    """``warm_start=True``: a second ``fit`` goes on from the fitted state,
    as one longer run would; ``warm_start=False`` starts afresh."""
    X, y = _noisy(n=200, n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warm = cls(warm_start=True, shuffle=False, random_state=0)
        warm.fit(X, y)
        first = copy.deepcopy(warm.state_)
        warm.fit(X, y)
        cold = cls(shuffle=False, random_state=0).fit(X, y)
    assert_same_state(cold.state_, first)
    # t counts every presentation since the start; n_iter_ counts passes
    # since the start (the margin family: passes of the last fit, per
    # problem to convergence, as scikit-learn's n_iter_).
    assert warm.state_.t > first.t
    # Same data, classes and width are required.
    with pytest.raises(ValueError, match="classes"):
        warm.fit(X[y < 2], y[y < 2])
    with pytest.raises(ValueError, match="features"):
        warm.fit(X[:, :5], y)


def test_warm_start_equals_a_longer_run_for_the_perceptron():
    X, y = _noisy(n=200, n_classes=3)
    warm = Perceptron(warm_start=True, shuffle=False, max_iter=2)
    warm.fit(X, y).fit(X, y)
    long = Perceptron(shuffle=False, max_iter=4).fit(X, y)
    assert_array_equal(warm.coef_, long.coef_)
    assert_array_equal(warm.intercept_, long.intercept_)
    with pytest.raises(ValueError, match="coef_init"):
        warm.fit(X, y, coef_init=np.zeros((3, X.shape[1])))
