"""``fit(X, y, coef_init=, intercept_init=)``: starting from given weights."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from perceptrons import MPU, PDM, PFM, ROMMA, Ballseptron, Perceptron
from perceptrons.datasets import make_separable


def _data(n_classes=2):
    X, y = make_separable(n_samples=120, n_features=6, margin=0.2,
                          random_state=3)[:2]
    if n_classes > 2:
        y = np.where(X[:, 0] > 0.3, 2, y)
    return X, y


@pytest.mark.parametrize("cls, params", [
    (Perceptron, {"hypothesis": "last"}),
    (Perceptron, {"multiclass": "prototype", "hypothesis": "last"}),
    (Perceptron, {"hypothesis": "longest"}),
    (Ballseptron, {"radius": 0.0, "hypothesis": "last"}),
    (Ballseptron, {}),
    (PDM, {}), (PFM, {}), (ROMMA, {}), (MPU, {})])
def test_starting_at_a_separator_makes_no_update(cls, params):
    X, y = _data()
    first = cls(random_state=0, **params).fit(X, y)
    assert first.score(X, y) == 1.0
    again = cls(random_state=1, **params).fit(
        X, y, coef_init=first.coef_, intercept_init=first.intercept_)
    if cls is Perceptron or params.get("radius") == 0.0:
        # Figure 2 updates only on mistakes (margin 0): none are left.
        assert again.n_updates_ == 0
        assert_array_equal(again.coef_, first.coef_)
    else:
        # PDM/PFM/ROMMA/MPU and the Ballseptron (margin errors) may still
        # update to widen the margin, but start correct: the first epoch
        # begins from the given hyperplane.
        assert again.score(X, y) == 1.0
    assert again.n_iter_ >= 1


def test_one_dimensional_coef_for_two_classes_and_shape_errors():
    X, y = _data()
    w = np.ones(X.shape[1])
    a = Perceptron(max_iter=1, shuffle=False).fit(X, y, coef_init=w)
    b = Perceptron(max_iter=1, shuffle=False).fit(X, y, coef_init=w[None])
    assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(ValueError, match="coef_init has shape"):
        Perceptron().fit(X, y, coef_init=np.ones(3))
    with pytest.raises(ValueError, match="intercept_init has shape"):
        PDM().fit(X, y, intercept_init=np.ones(2))
    with pytest.raises(ValueError, match="NaN or infinity"):
        PDM().fit(X, y, coef_init=np.full(X.shape[1], np.nan))
    with pytest.raises(ValueError, match="voted"):
        Perceptron(hypothesis="voted").fit(X, y, coef_init=w)
    with pytest.raises(ValueError, match="intercept_init must be zero"):
        Ballseptron().fit(X, y, coef_init=w, intercept_init=[1.0])
    with pytest.raises(ValueError, match="kernel"):
        Ballseptron(kernel="rbf").fit(X, y, coef_init=w)


def test_multiclass_rows_per_class():
    X, y = _data(n_classes=3)
    coef = np.zeros((3, X.shape[1]))
    coef[1, 0] = 1.0
    est = Perceptron(max_iter=1, eta=1e-9, theta_init=0.0,
                     threshold_step=0.0, shuffle=False)
    est.fit(X, y, coef_init=coef, intercept_init=np.zeros(3))
    # With a vanishing step the weights stay (to rounding) where they began.
    np.testing.assert_allclose(est.coef_, coef, atol=1e-6)


@pytest.mark.parametrize("cls_name, kept, asked", [
    ("Perceptron", "averaged", "last"), ("Perceptron", "voted", "averaged"),
    ("HigherOrderPerceptron", "averaged", "last"),
    ("SecondOrderPerceptron", "last", "averaged")])
def test_a_continued_model_refuses_another_hypothesis(cls_name, kept, asked):
    # (The Ballseptron has its own rule, the next test.)
    import perceptrons

    cls = getattr(perceptrons, cls_name)
    X, y = _data()
    est = cls(hypothesis=kept, random_state=0).partial_fit(
        X, y, classes=np.unique(y))
    before = est.decision_function(X)
    est.set_params(hypothesis=asked)
    with pytest.raises(ValueError, match=f"keeps the '{kept}' hypothesis"):
        est.partial_fit(X, y)
    est.set_params(warm_start=True)
    with pytest.raises(ValueError, match=f"keeps the '{kept}' hypothesis"):
        est.fit(X, y)
    # Refused before anything changed; a fresh fit takes the new one.
    est.set_params(hypothesis=kept)
    assert_array_equal(est.decision_function(X), before)
    est.set_params(hypothesis=asked, warm_start=False)
    assert est.fit(X, y).state_.hypothesis == asked


def test_the_ballseptron_drops_to_last_but_cannot_return():
    X, y = _data()
    est = Ballseptron(random_state=0).partial_fit(X, y, classes=np.unique(y))
    est.set_params(hypothesis="last")
    est.partial_fit(X, y)  # the running sum is dropped
    assert not est.state_.averaged
    last = Ballseptron(hypothesis="last", random_state=0).partial_fit(
        X, y, classes=np.unique(y))
    last.set_params(hypothesis="averaged")
    with pytest.raises(ValueError, match="needs the running sum"):
        last.partial_fit(X, y)
