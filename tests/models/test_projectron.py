"""The Projectron and Projectron++ (Orabona, Keshet & Caputo 2009).

Against the line-by-line reference (``tests/reference/budget.py``: every
projection solved afresh with numpy): the same mistakes and updates, the
decision values to 1e-8; the support bounded by η; DOGMA's reading of η
(against δ², not δ) measured beside ours.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification

from perceptrons import Perceptron, Projectron
from tests.reference import budget as ref


def data(n_classes, n=50, seed=2):
    X, y = make_classification(
        n_samples=n, n_features=4, n_informative=3, n_redundant=0,
        n_classes=n_classes, n_clusters_per_class=1, flip_y=0.1,
        random_state=seed)
    return X, y, X[:15] - 0.05


@pytest.mark.reference
@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("hypothesis", ["last", "averaged"])
@pytest.mark.parametrize("plus", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_projectron_matches_its_reference(n_classes, plus, hypothesis,
                                          storage):
    X, y, X_test = data(n_classes)
    A = sp.csr_matrix(X) if storage == "csr" else X
    est = Projectron(gamma=0.5, eta=0.7, plus=plus, hypothesis=hypothesis,
                     max_iter=2, shuffle=False).fit(A, y)
    run = ref.projectron(X, y, X_test, kernel="rbf", gamma=0.5, eta=0.7,
                         plus=plus, hypothesis=hypothesis, n_epochs=2)
    assert est.n_mistakes_ == run.n_mistakes
    assert est.n_updates_ == run.n_updates
    assert_allclose(est.decision_function(X_test), run.decision, rtol=1e-8,
                    atol=1e-8)
    # Some updates were projected (the support did not grow on them).
    assert est.n_projections_ > 0


def test_the_support_grows_past_its_first_capacity():
    """A support larger than the budget arrays' first room (16) is
    grown in the middle of a pass, the pass going on from there."""
    X, y = make_classification(n_samples=400, n_features=8, flip_y=0.2,
                               random_state=0)
    est = Projectron(gamma=2.0, eta=0.01, hypothesis="last", max_iter=1,
                     shuffle=False).fit(X, y)
    assert est.support_.shape[0] > 40
    run = ref.projectron(X[:150], y[:150], X[:10], kernel="rbf", gamma=2.0,
                         eta=0.01, n_epochs=1)
    small = Projectron(gamma=2.0, eta=0.01, hypothesis="last", max_iter=1,
                       shuffle=False).fit(X[:150], y[:150])
    assert small.n_mistakes_ == run.n_mistakes
    assert_allclose(small.decision_function(X[:10]), run.decision,
                    rtol=1e-8, atol=1e-8)


def test_eta_zero_is_the_kernel_perceptron():
    """η = 0 projects only what lies in the span exactly: on data in
    general position, the kernel perceptron's mistakes."""
    X, y, _ = data(2, n=120)
    proj = Projectron(gamma=0.5, eta=0.0, hypothesis="last", max_iter=1,
                      shuffle=False).fit(X, y)
    perc = Perceptron(kernel="rbf", gamma=0.5, eta=1.0, theta_init=0.0,
                      threshold_step=0.0, hypothesis="last", max_iter=1,
                      shuffle=False).fit(X, y)
    assert proj.n_mistakes_ == perc.n_mistakes_
    assert_array_equal(proj.support_, perc.support_)


def test_larger_eta_keeps_fewer_support_vectors():
    X, y = make_classification(n_samples=600, n_features=5, flip_y=0.1,
                               random_state=3)
    sizes = [Projectron(gamma=0.5, eta=eta, hypothesis="last", max_iter=1,
                        shuffle=False).fit(X, y).support_.shape[0]
             for eta in (0.0, 0.1, 0.3, 0.6)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] < sizes[0]


def test_dogmas_reading_of_eta():
    """DOGMA compares η with δ² (module notes of the estimator): its
    Projectron with η = e is ours with η = √e, mistake for mistake; its
    Projectron++ margin test (ℓ - δ²/η) differs from ours (ℓ - δ/η)."""
    X, y, X_test = data(2, n=200, seed=5)
    e = 0.04
    ours = ref.projectron(X, y, X_test, kernel="rbf", gamma=0.5,
                          eta=np.sqrt(e), n_epochs=1)
    dogma = ref.projectron(X, y, X_test, kernel="rbf", gamma=0.5, eta=e,
                           n_epochs=1, reading="dogma")
    assert ours.n_mistakes == dogma.n_mistakes
    assert_allclose(ours.decision, dogma.decision, rtol=1e-10)
    e = 0.49
    ours = ref.projectron(X, y, X_test, kernel="rbf", gamma=0.5,
                          eta=np.sqrt(e), plus=True, n_epochs=1)
    dogma = ref.projectron(X, y, X_test, kernel="rbf", gamma=0.5, eta=e,
                           plus=True, n_epochs=1, reading="dogma")
    # Measured: 21 and 25 updates (18 and 17 support vectors).
    assert ours.n_updates != dogma.n_updates
    # The same mistakes' updates, other margin steps: other hypotheses.
    assert np.max(np.abs(ours.decision - dogma.decision)) > 1e-3
