"""The averaged hypothesis of the matrix perceptrons (issue #23).

The average of the hypotheses after each trial, kept lazily by the loop,
equals the plain average of the last hypothesis read after every single
row (one-row ``partial_fit`` calls of the last-hypothesis model, whose
updates the reference tests check), in every form, weighted or not, over
several passes and across calls.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification

from perceptrons import HigherOrderPerceptron, SecondOrderPerceptron

FORMS = [
    (HigherOrderPerceptron, {"c": 0.5}),
    (HigherOrderPerceptron, {"c": 0.5, "form": "implicit", "p": 3.0,
                             "sparse": True}),
    (HigherOrderPerceptron, {"c": 0.3, "kernel": "linear"}),
    (HigherOrderPerceptron, {"c": 0.3, "kernel": "rbf", "gamma": 0.3}),
    (SecondOrderPerceptron, {"a": 2.0}),
    (SecondOrderPerceptron, {"a": 2.0, "kernel": "poly", "degree": 2,
                             "coef0": 1.0}),
]
IDS = [f"{cls.__name__[:6]}-{'-'.join(map(str, p.values()))}"
       for cls, p in FORMS]


def _data(n_classes, csr):
    X, y = make_classification(n_samples=60, n_features=5, n_informative=4,
                               n_redundant=0, n_classes=n_classes,
                               flip_y=0.2, random_state=n_classes)
    return (sp.csr_matrix(X) if csr else X), y


def _linear_scores(est, X):
    """Scores of X by the model's hypothesis as a linear function (in
    feature space): ``wᵀx`` of the rows as given."""
    s = est.state_
    return s.model.linear_scores(X, s.final_weights(),
                                 normalize=est.normalize)


def _running_average(cls, params, X, y, weights, n_passes):
    """The mean over trials of the last hypothesis's scores of X, read
    after every row."""
    est = cls(hypothesis="last", shuffle=False, **params)
    classes = np.unique(y)
    seen = []
    for _ in range(n_passes):
        for i in range(X.shape[0]):
            est.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes,
                            sample_weight=weights[i:i + 1])
            seen.append(_linear_scores(est, X))
    return np.mean(seen, axis=0), est


@pytest.mark.reference
@pytest.mark.parametrize("cls, params", FORMS, ids=IDS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("csr", [False, True])
def test_averaged_is_the_mean_of_every_trials_hypothesis(cls, params,
                                                         n_classes, csr):
    X, y = _data(n_classes, csr)
    weights = np.random.default_rng(0).uniform(0.3, 2.0, X.shape[0])
    mean, last = _running_average(cls, params, X, y, weights, n_passes=2)
    est = cls(shuffle=False, max_iter=2, **params).fit(
        X, y, sample_weight=weights)
    assert est.hypothesis == "averaged"
    assert est.n_mistakes_ == last.n_mistakes_
    scores = est.decision_function(X)
    assert_allclose(scores, mean.reshape(scores.shape), rtol=1e-9,
                    atol=1e-12)
    # Two calls continue the average as one.
    two = cls(shuffle=False, max_iter=1, **params)
    two.partial_fit(X, y, classes=np.unique(y), sample_weight=weights)
    two.partial_fit(X, y, sample_weight=weights)
    assert_allclose(two.decision_function(X), scores, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls, params", FORMS, ids=IDS)
def test_averaged_state_round_trips(cls, params):
    X, y = _data(3, False)
    est = cls(max_iter=2, random_state=0, **params).fit(X, y)
    view = cls(**est.get_params())
    view._set_state(est.state_)
    assert_array_equal(view.decision_function(X), est.decision_function(X))
    bad = est.state_.replace(summed=est.state_.summed[:, :-1])
    with pytest.raises(ValueError, match="summed has"):
        view._set_state(bad)
