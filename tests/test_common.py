"""scikit-learn's own estimator checks on every public estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import perceptrons
from tests import _registry as reg
from tests._states import state_arrays


def _public_estimators():
    """Every estimator of the registry (``perceptrons.registry``)."""
    return reg.estimator_classes()


def _instances():
    # Each class declares the parameter sets it is checked with.
    for cls in _public_estimators():
        for params in cls._test_params():
            yield cls(**params)


def _expected_failed_checks(estimator):
    return getattr(estimator, "_xfail_checks", lambda: {})()


@reg.mark()
@parametrize_with_checks(list(_instances()),
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_public_estimators_are_the_registry():
    # What perceptrons exports is what the tests enumerate.
    assert perceptrons.Perceptron in _public_estimators()
    assert [c.__name__ for c in _public_estimators()] == [
        name for name in perceptrons.__all__ if name != "__version__"]
    assert all(getattr(perceptrons, c.__name__) is c
               for c in _public_estimators())


def test_checks_run_at_every_estimators_defaults():
    """Issue #39, point 7: scikit-learn's checks run at each estimator's
    default parameters (its first ``_test_params`` set is ``{}``), not only
    at parameter sets chosen to pass them."""
    for cls in _public_estimators():
        assert cls._test_params()[0] == {}, cls.__name__


def _fitted_instances():
    return reg.cases()


@reg.mark()
@pytest.mark.parametrize("cls, params", list(_fitted_instances()))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fitted_estimator_is_its_state(cls, params, n_classes):
    """After fit and partial_fit an estimator holds its parameters, its
    state and public attributes that are views of the state, nothing else."""
    import warnings

    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=90, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=0)
    est = cls(**params)
    params = set(est.get_params(deep=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fit in (lambda: est.fit(X, y),
                    lambda: est.partial_fit(X[:40], y[:40]),
                    lambda: est.partial_fit(X[40:], y[40:])):
            fit()
            held = set(vars(est)) - params
            assert "state_" in held
            assert all(n.endswith("_") and not n.startswith("_")
                       for n in held), sorted(held)
            # Every public attribute is a view of the state: an estimator
            # given only the state has them all, equal.
            view = cls(**est.get_params())
            view._set_state(est.state_)
            assert set(vars(view)) == set(vars(est))
            for name in held - {"state_"}:
                a, b = getattr(est, name), getattr(view, name)
                if hasattr(a, "toarray"):
                    a, b = a.toarray(), b.toarray()
                np.testing.assert_array_equal(a, b, err_msg=name)
    # Nothing in the state is sized by the training set except what the
    # model is made of (support vectors, their coefficients, vote logs).
    model_parts = ("pool", "vote_rows", "voted", ".support", "dual_coef",
                   ".coef", "v_coef", "current", "summed", "snapshot",
                   "slots", ".D", ".M", ".h", "signs")
    for where, value in state_arrays(est.state_):
        if not any(part in where for part in model_parts):
            assert X.shape[0] not in value.shape, where


def _decision_instances():
    import perceptrons as P

    yield from _fitted_instances()
    # Hypotheses and forms whose decision is not (or not obviously) a
    # weight vector's: each either exports its decision or has no coef_.
    for cls, params in (
            (P.Perceptron, {"hypothesis": "voted"}),
            (P.Perceptron, {"multiclass": "prototype"}),
            (P.Perceptron, {"multiclass": "prototype", "hypothesis": "last"}),
            (P.KernelPerceptron, {"kernel": "linear", "hypothesis": "voted"}),
            (P.HigherOrderPerceptron, {"hypothesis": "last"}),
            (P.HigherOrderPerceptron, {"kernel": "linear"}),
            (P.HigherOrderPerceptron, {"p": 3.0, "form": "implicit"}),
            (P.SecondOrderPerceptron, {"hypothesis": "last"}),
            (P.SecondOrderPerceptron, {"kernel": "linear"}),
            (P.SecondOrderPerceptron, {"kernel": "linear",
                                       "hypothesis": "last"})):
        yield pytest.param(cls, params, id=f"{cls.__name__}-{params}")


@reg.mark()
@pytest.mark.parametrize("cls, params", list(_decision_instances()))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_coef_is_the_decision_or_absent(cls, params, n_classes):
    """Issue #23: ``coef_``/``intercept_`` exist exactly where they give
    ``decision_function`` (to rounding); otherwise reading them says why."""
    import warnings

    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=120, n_features=6, n_informative=4,
                               n_redundant=0, n_classes=n_classes,
                               random_state=1)
    X = X * 3.0 + 1.0  # rows of norm far from 1: normalising must show
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(**params, random_state=0).fit(X, y)
    scores = est.decision_function(X)
    if not hasattr(est, "coef_"):
        with pytest.raises(AttributeError, match=r"has no coef_: \w"):
            est.coef_
        return
    coef, intercept = est.coef_, est.intercept_
    assert coef.shape == (1 if n_classes == 2 else n_classes, X.shape[1])
    assert intercept.shape == (coef.shape[0],)
    linear = X @ coef.T + intercept
    scale = np.abs(X) @ np.abs(coef).T + np.abs(intercept)
    linear, scale = (linear.ravel(), scale.ravel()) if n_classes == 2 else (
        linear, scale)
    assert scores.shape == linear.shape
    assert np.all(np.abs(scores - linear) <= 1e-12 * scale), \
        np.abs(scores - linear).max()
    np.testing.assert_array_equal(
        est.predict(X), est.classes_[(linear > 0).astype(int)]
        if n_classes == 2 else est.classes_[np.argmax(linear, axis=1)])


def _origin_bound(n_centers):
    """The largest share of ``check_class_weight_classifiers``' test rows
    that a hyperplane through the origin puts on one side (its data: 2-D
    blobs of standard deviation 20, half held out), over 36,000 directions.
    With more than two classes, class 0's one-vs-rest region is an
    intersection of half-planes through the origin, so the bound holds
    there too."""
    import numpy as np
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split

    X, y = make_blobs(centers=n_centers, random_state=0, cluster_std=20)
    _, X_test, _, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    angle = np.linspace(0.0, 2.0 * np.pi, 36_000, endpoint=False)
    sides = X_test @ np.stack([np.cos(angle), np.sin(angle)])
    return float((sides > 0).mean(axis=0).max())


def test_class_weight_check_through_the_origin_is_out_of_reach():
    """Issue #39, point 7. ``check_class_weight_classifiers`` at the
    defaults of Ballseptron, HigherOrderPerceptron and SecondOrderPerceptron
    (the issue measured 0.60 / 0.66 / 0.66 < 0.87) is an expected failure
    for a principled reason, which this test pins: their hyperplane goes
    through the origin (the decision at x = 0 is 0, however the rows are
    weighted), and there no hyperplane reaches the share of class 0 the
    check asks (> 0.87: the best holds 0.600 of its test rows with two
    classes, 0.700 with three), so no weighting could pass it. Their
    weights reach every part of each update (their Notes, "Weighted rows",
    and the weighted reference tests). Every estimator that declares the
    failure with no intercept at its defaults names the origin; the others
    (CW, NHERD: an intercept, other reasons) give theirs."""
    import warnings

    import numpy as np
    from sklearn.datasets import make_blobs

    bounds = {n: _origin_bound(n) for n in (2, 3)}
    assert round(bounds[2], 3) == 0.600 and round(bounds[3], 3) == 0.700
    assert max(bounds.values()) < 0.87
    X, y = make_blobs(centers=3, random_state=0, cluster_std=20)
    through_origin = []
    for cls in _public_estimators():
        reason = cls()._xfail_checks().get("check_class_weight_classifiers")
        if reason is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cls(class_weight={0: 1000, 1: 1e-4, 2: 1e-4}).fit(X, y)
        if np.all(est.decision_function(np.zeros((1, 2))) == 0.0):
            through_origin.append(cls.__name__)
            assert "origin" in reason, cls.__name__
        else:
            assert "through the origin" not in reason, cls.__name__
    assert {"Ballseptron", "HigherOrderPerceptron",
            "SecondOrderPerceptron"} <= set(through_origin)
