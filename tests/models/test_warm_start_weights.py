"""``fit(X, y, coef_init=, intercept_init=)``: starting from given weights."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from perceptrons import PDM, Ballseptron, Perceptron
from perceptrons.datasets import make_separable
from tests import _registry as reg


def _data(n_classes=2, separator=False):
    X, y, u = make_separable(n_samples=120, n_features=6, margin=0.2,
                             random_state=3)[:3]
    if n_classes > 2:
        y = np.where(X[:, 0] > 0.3, 2, y)
    return (X, y, u) if separator else (X, y)


@reg.mark()
@pytest.mark.parametrize("cls", reg.estimator_classes(), ids=reg.class_id)
def test_defaults_start_at_a_separator_or_refuse_coef_init(cls):
    """With its defaults, every estimator either refuses coef_init (its
    model is not a weight vector of the input space: a kernel, a matrix, a
    normalised w) or starts its first epoch from the given hyperplane:
    from a separator (the data's own, or the one a first fit found) it may
    update to widen the margin (PDM/PFM/ROMMA/MPU, the Ballseptron's margin
    errors) but ends correct."""
    X, y, u = _data(separator=True)
    first = cls(random_state=0).fit(X, y)
    starts = [(u[None, :], np.zeros(1))]
    if first.score(X, y) == 1.0 and hasattr(first, "coef_"):
        starts.append((first.coef_, first.intercept_))
    for coef, intercept in starts:
        try:
            again = cls(random_state=1).fit(
                X, y, coef_init=coef, intercept_init=intercept)
        except ValueError as exc:
            assert "coef_init/intercept_init" in str(exc)
            continue
        assert again.score(X, y) == 1.0
        assert again.n_iter_ >= 1


@pytest.mark.parametrize("cls, params", [
    (Perceptron, {"hypothesis": "last"}),
    (Perceptron, {"multiclass": "prototype", "hypothesis": "last"}),
    (Perceptron, {"hypothesis": "longest"}),
    (Ballseptron, {"radius": 0.0, "hypothesis": "last"})])
def test_starting_at_a_separator_makes_no_update(cls, params):
    # Figure 2 (and the Ballseptron at radius 0, which is Figure 2)
    # updates only on mistakes (margin 0): none are left. (Every
    # estimator's start is checked above.)
    X, y = _data()
    first = cls(random_state=0, **params).fit(X, y)
    assert first.score(X, y) == 1.0
    again = cls(random_state=1, **params).fit(
        X, y, coef_init=first.coef_, intercept_init=first.intercept_)
    assert again.n_updates_ == 0
    assert_array_equal(again.coef_, first.coef_)
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


def _hypotheses(cls):
    """The values of ``cls``'s ``hypothesis`` parameter."""
    for constraint in cls._parameter_constraints["hypothesis"]:
        if hasattr(constraint, "options"):
            return sorted(constraint.options)
    return []


@reg.mark(rule=reg.has_param("hypothesis"))
@pytest.mark.parametrize("cls", [c for c in reg.estimator_classes()
                                 if reg.has_param("hypothesis")(c)],
                         ids=reg.class_id)
def test_a_continued_model_switches_hypothesis_or_refuses_unchanged(cls):
    """Every switch of ``hypothesis`` between ``partial_fit`` calls, and
    before a warm-started ``fit``, is either taken or refused with a
    message naming the hypothesis, before anything changed; both entry
    points decide alike."""
    X, y = _data()
    classes = np.unique(y)
    for kept in _hypotheses(cls):
        for asked in _hypotheses(cls):
            if asked == kept:
                continue
            outcomes = []
            for warm in (False, True):
                est = cls(hypothesis=kept, random_state=0).partial_fit(
                    X, y, classes=classes)
                before = est.decision_function(X)
                est.set_params(hypothesis=asked, warm_start=warm)
                try:
                    if warm:
                        est.fit(X, y)
                    else:
                        est.partial_fit(X, y)
                except ValueError as exc:
                    assert "hypothesis" in str(exc), (kept, asked, exc)
                    est.set_params(hypothesis=kept)
                    assert_array_equal(est.decision_function(X), before)
                    outcomes.append("refused")
                else:
                    outcomes.append("taken")
            assert outcomes[0] == outcomes[1], (kept, asked, outcomes)


@pytest.mark.parametrize("cls_name, kept, asked", [
    ("Perceptron", "averaged", "last"), ("Perceptron", "voted", "averaged"),
    ("HigherOrderPerceptron", "averaged", "last"),
    ("SecondOrderPerceptron", "last", "averaged")])
def test_a_continued_model_refuses_another_hypothesis(cls_name, kept, asked):
    # What Figure 2 and the matrix forms say (every estimator's switches
    # are checked above; the Ballseptron has its own rule, the next test).
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
